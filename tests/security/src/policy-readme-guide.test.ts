// The policy README's walk-through ("Writing a policy for your tools") is followed by people
// writing their first policy, so its snippets must be real: each TypeScript block type-checks
// against the built packages and runs, printing what its `console.log(…); // …` comments say;
// each JSON block loads, as a policy document (`rules`) or as tool declarations (`tools`).
// Blocks marked `jsonc` are excerpts and are not loaded.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadPolicy } from "@yoke/policy";
import { parseToolDeclarations } from "@yoke/testkit/security";
import { afterAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../../", import.meta.url));
// Inside the suite's folder, so the snippets resolve @yoke/* and zod as this package does (gitignored).
const dir = join(root, "tests/security/.readme-snippets/policy-guide");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HEADING = "## Writing a policy for your tools";

function section(): string {
  const readme = readFileSync(join(root, "packages/policy/README.md"), "utf8");
  const start = readme.indexOf(`\n${HEADING}\n`);
  expect(start, `packages/policy/README.md has a section "${HEADING}"`).toBeGreaterThanOrEqual(0);
  const end = readme.indexOf("\n## ", start + HEADING.length + 1);
  return readme.slice(start, end < 0 ? undefined : end);
}

function blocks(kind: "ts" | "json"): string[] {
  return [...section().matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].filter((match) => match[1] === kind).map((match) => match[2]!);
}

/** What a snippet says it prints: the comment closing each `console.log(…)` line, the whole line, `…` standing for any text. */
function expectations(snippet: string): RegExp[] {
  return snippet
    .split("\n")
    .map((line) => line.match(/console\.log\(.*\);\s*\/\/\s*(.+)$/)?.[1]?.trim())
    .filter((comment): comment is string => comment !== undefined)
    .map(
      (comment) =>
        new RegExp(
          `^${comment
            .split("…")
            .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
            .join(".*")}$`,
        ),
    );
}

describe("the policy README's walk-through", () => {
  const snippets = blocks("ts");

  it("has the snippets it promises: a tool declared in code, and a policy tested on tuples", () => {
    expect(snippets.length).toBe(2);
    expect(snippets.some((snippet) => snippet.includes("defineTool("))).toBe(true);
    expect(snippets.some((snippet) => /createPolicyEngine\(\s*loadPolicy\(/.test(snippet))).toBe(true);
  });

  it("every JSON block loads: tool declarations, or a policy document", () => {
    const documents = blocks("json").map((text) => JSON.parse(text) as Record<string, unknown>);
    expect(documents.length).toBeGreaterThan(0);
    for (const document of documents) {
      if ("rules" in document) expect(() => loadPolicy(document)).not.toThrow();
      else expect(() => parseToolDeclarations(document, "README tool declarations")).not.toThrow();
    }
    expect(documents.some((document) => "tools" in document)).toBe(true);
  });

  it("every TypeScript snippet type-checks against the built packages", () => {
    mkdirSync(dir, { recursive: true });
    const files = snippets.map((snippet, index) => {
      const file = `snippet-${index + 1}.ts`;
      // Each snippet is a module of its own (they declare the same names).
      writeFileSync(join(dir, file), `${snippet}\nexport {};\n`);
      return file;
    });
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ extends: "../../../../tsconfig.base.json", compilerOptions: { noEmit: true }, files }, null, 2));
    const tsc = createRequire(join(root, "package.json")).resolve("typescript/bin/tsc");
    const child = spawnSync(process.execPath, [tsc, "-p", join(dir, "tsconfig.json")], { cwd: dir, encoding: "utf8", timeout: 25_000 });
    expect(child.stdout + child.stderr).toBe("");
    expect(child.status).toBe(0);
  });

  it.each(snippets.map((snippet, index) => [index + 1, snippet] as const))("snippet %i runs and prints what its comments say", (index, snippet) => {
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `run-${index}.ts`);
    writeFileSync(file, snippet);
    const child = spawnSync(process.execPath, [file], { cwd: dir, encoding: "utf8", timeout: 25_000 });
    expect(child.stderr).toBe("");
    expect(child.status).toBe(0);
    const wanted = expectations(snippet);
    expect(wanted.length).toBeGreaterThan(0);
    const lines = child.stdout.trimEnd().split("\n");
    expect(lines.length).toBe(wanted.length);
    for (const [at, pattern] of wanted.entries()) expect(lines[at]).toMatch(pattern);
  });
});
