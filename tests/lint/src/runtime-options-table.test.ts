// The runtime README's options table lists every option of `HarnessOptions`, and calls an
// option required only when the type does. The option names and whether each is optional come
// from the TypeScript checker over the runtime's own source, so a new option, or one made
// optional, fails this test until the table says so.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../../..");
const OPTIONS_SOURCE = join(ROOT, "packages/runtime/src/harness-options/harness-options.ts");

/** Every member of `HarnessOptions` (its groups included) and whether it is optional. */
function harnessOptions(): Map<string, boolean> {
  const program = ts.createProgram([OPTIONS_SOURCE], {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(OPTIONS_SOURCE)!;
  const declaration = source.statements.find(
    (statement): statement is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(statement) && statement.name.text === "HarnessOptions",
  );
  if (declaration === undefined) throw new Error(`no interface HarnessOptions in ${OPTIONS_SOURCE}`);
  const options = new Map<string, boolean>();
  for (const property of checker.getPropertiesOfType(checker.getTypeAtLocation(declaration))) {
    options.set(property.name, (property.flags & ts.SymbolFlags.Optional) !== 0);
  }
  return options;
}

/** The rows of the README's "## Options" table: the option names of each row (top level, `a.b` as `a`) and its last cell. */
function tableRows(): { names: string[]; note: string }[] {
  const readme = readFileSync(join(ROOT, "packages/runtime/README.md"), "utf8");
  const section = readme.split(/^## Options$/m)[1]?.split(/^## /m)[0];
  if (section === undefined) throw new Error("the runtime README has no '## Options' section");
  const rows: { names: string[]; note: string }[] = [];
  for (const line of section.split("\n")) {
    if (!line.startsWith("| `")) continue;
    const cells = line.split(" | ");
    const names = [...cells[0]!.matchAll(/`([A-Za-z]+)(?:\.[A-Za-z]+)?`/g)].map((match) => match[1]!);
    rows.push({ names, note: cells.at(-1)!.replace(/\s*\|\s*$/, "") });
  }
  return rows;
}

describe("the runtime README's options table", () => {
  const options = harnessOptions();
  const rows = tableRows();
  const listed = new Set(rows.flatMap((row) => row.names));

  it("reads the options from the type (a sanity check of the reader)", () => {
    expect(options.get("provider")).toBe(false);
    expect(options.get("journal")).toBe(true);
    expect(options.size).toBeGreaterThan(30);
  });

  it("lists every option of HarnessOptions, and nothing else", () => {
    expect([...options.keys()].filter((name) => !listed.has(name)).sort()).toEqual([]);
    expect([...listed].filter((name) => !options.has(name)).sort()).toEqual([]);
  });

  it("calls required exactly the options the type requires", () => {
    const required = rows.filter((row) => row.note.startsWith("required")).flatMap((row) => row.names);
    expect(required.sort()).toEqual(
      [...options]
        .filter(([, optional]) => !optional)
        .map(([name]) => name)
        .sort(),
    );
  });
});
