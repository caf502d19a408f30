// Prints the public surface of every @yoke package: for each entry of its package.json
// `exports` map, the names its built `.d.ts` exports (values and types), and a count.
// Usage (after `turbo run build`):
//   node scripts/export-counts.ts            # counts per package and entry
//   node scripts/export-counts.ts --names    # the names too
//   node scripts/export-counts.ts --json     # machine-readable
//   node scripts/export-counts.ts --usage    # per root-entry name: which other packages import it
// The issue 12 closing note quotes these counts before and after moving internals behind
// `/internal` entries.
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";

const root = join(import.meta.dirname, "..");
const args = new Set(process.argv.slice(2));

interface EntryCount {
  readonly pkg: string;
  readonly entry: string;
  readonly names: readonly string[];
}

function exportedNames(dtsPath: string): string[] {
  const program = ts.createProgram([dtsPath], {
    noEmit: true,
    skipLibCheck: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(dtsPath);
  if (source === undefined) throw new Error(`cannot read ${dtsPath}`);
  const moduleSymbol = checker.getSymbolAtLocation(source);
  if (moduleSymbol === undefined) return [];
  return checker
    .getExportsOfModule(moduleSymbol)
    .map((symbol) => symbol.getName())
    .sort();
}

function typesPath(target: unknown): string | undefined {
  if (typeof target === "string") return target.endsWith(".d.ts") ? target : undefined;
  if (target === null || typeof target !== "object") return undefined;
  const conditions = target as Record<string, unknown>;
  if (typeof conditions.import === "object") return typesPath(conditions.import);
  if (typeof conditions.types === "string") return conditions.types;
  return undefined;
}

const counts: EntryCount[] = [];
for (const dir of readdirSync(join(root, "packages")).sort()) {
  const pkgDir = join(root, "packages", dir);
  const manifestPath = join(pkgDir, "package.json");
  if (!existsSync(manifestPath)) continue;
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as { name: string; exports?: Record<string, unknown> };
  for (const [entry, target] of Object.entries(manifest.exports ?? {})) {
    const dts = typesPath(target);
    if (dts === undefined) continue;
    const file = join(pkgDir, dts);
    if (!existsSync(file)) throw new Error(`${manifest.name}${entry.slice(1)}: ${dts} is not built; run \`turbo run build\` first`);
    counts.push({ pkg: manifest.name, entry, names: exportedNames(file) });
  }
}

/** Which other packages (and examples/tests) import each name of a package's root entry. */
function usage(): void {
  const sources: { owner: string; text: string }[] = [];
  const walk = (dir: string, owner: string): void => {
    for (const item of readdirSync(dir, { withFileTypes: true })) {
      if (item.name === "node_modules" || item.name === "dist" || item.name.startsWith(".")) continue;
      const path = join(dir, item.name);
      if (item.isDirectory()) walk(path, owner);
      else if (/\.(ts|tsx|mts|cts)$/.test(item.name)) sources.push({ owner, text: readFileSync(path, "utf8") });
    }
  };
  for (const group of ["packages", "examples", "tests"]) {
    if (!existsSync(join(root, group))) continue;
    for (const name of readdirSync(join(root, group))) walk(join(root, group, name), `${group}/${name}`);
  }
  walk(join(root, "bench"), "bench");
  for (const { pkg, entry, names } of counts) {
    if (entry !== ".") continue;
    const importRe = new RegExp(`import\\s+(?:type\\s+)?\\{([^}]*)\\}\\s+from\\s+["']${pkg.replace("/", "\\/")}["']`, "g");
    const usedBy = new Map<string, Set<string>>();
    for (const { owner, text } of sources) {
      if (owner === `packages/${pkg.slice("@yoke/".length)}`) continue;
      for (const match of text.matchAll(importRe)) {
        for (const raw of match[1]!.split(",")) {
          const name = raw
            .replace(/^\s*type\s+/, "")
            .split(/\s+as\s+/)[0]!
            .trim();
          if (name === "") continue;
          if (!usedBy.has(name)) usedBy.set(name, new Set());
          usedBy.get(name)!.add(owner);
        }
      }
    }
    console.log(`\n${pkg}`);
    for (const name of names) console.log(`  ${name.padEnd(40)} ${[...(usedBy.get(name) ?? [])].sort().join(", ") || "-"}`);
  }
}

if (args.has("--json")) {
  console.log(
    JSON.stringify(
      counts.map(({ pkg, entry, names }) => ({ pkg, entry, count: names.length, names })),
      null,
      2,
    ),
  );
} else if (args.has("--usage")) {
  usage();
} else {
  for (const { pkg, entry, names } of counts) {
    console.log(`${(pkg + entry.slice(1)).padEnd(44)} ${String(names.length).padStart(4)}`);
    if (args.has("--names")) console.log(`  ${names.join(", ")}`);
  }
}
