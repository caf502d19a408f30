// What a package's source imports against what its package.json lists: a published package
// must list every package its shipped code imports (as a dependency or a peer) and nothing it
// never imports; the rest of src/ (tests, fixtures, test support) may also use its
// devDependencies and the workspace root's (vitest, fast-check).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { manifestOf, repoRoot } from "./readmes.ts";

/** The files the build ships: its entry points (tsup.config.ts) and every file they import, transitively. */
export function shippedFiles(packageDir: string): Set<string> {
  const config = readFileSync(join(packageDir, "tsup.config.ts"), "utf8");
  const entries = [...config.matchAll(/"(src\/[^"]+\.ts)"/g)].map((m) => m[1]!);
  const pending = (entries.length > 0 ? entries : ["src/index.ts"]).map((entry) => join(packageDir, entry));
  const shipped = new Set<string>();
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (shipped.has(file)) continue;
    shipped.add(file);
    const source = readFileSync(file, "utf8");
    for (const m of source.matchAll(/(?:from\s+|import\(\s*)"(\.{1,2}\/[^"]+)"/g)) {
      const target = join(dirname(file), m[1]!).replace(/\.js$/, ".ts");
      const resolved = [target, `${target}.ts`, join(target, "index.ts")].find((path) => existsSync(path) && path.endsWith(".ts"));
      if (resolved) pending.push(resolved);
    }
  }
  return shipped;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`); undefined for builtins and relative paths. */
export function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith(".") || specifier.startsWith("/") || specifier.startsWith("node:")) return undefined;
  return specifier
    .split("/")
    .slice(0, specifier.startsWith("@") ? 2 : 1)
    .join("/");
}

/** The packages imported (statically, by `import()`, `require()` or `export … from`) in `source`. */
export function importedPackages(source: string): Set<string> {
  const specifiers = [
    ...source.matchAll(/^\s*(?:import|export)\s[^;]*?\sfrom\s+"([^"]+)"/gms),
    ...source.matchAll(/^\s*import\s+"([^"]+)"/gm),
    ...source.matchAll(/\b(?:import|require)\(\s*"([^"]+)"\s*\)/g),
  ].map((m) => m[1]!);
  return new Set(specifiers.map(packageOf).filter((name): name is string => name !== undefined));
}

/** Every mismatch between what `packages/<dir>` imports and what its package.json lists. */
export function dependencyProblems(dir: string): string[] {
  const manifest = manifestOf(dir) as ReturnType<typeof manifestOf> & { devDependencies?: Record<string, string> };
  const shippedDeps = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})]);
  const root = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { devDependencies?: Record<string, string> };
  const devDeps = new Set([...Object.keys(manifest.devDependencies ?? {}), ...Object.keys(root.devDependencies ?? {})]);
  const shipped = new Map<string, string>();
  const testOnly = new Map<string, string>();
  const packageDir = join(repoRoot, "packages", dir);
  const shippedSet = shippedFiles(packageDir);
  for (const file of sourceFiles(join(packageDir, "src"))) {
    const where = relative(packageDir, file);
    for (const name of importedPackages(readFileSync(file, "utf8"))) {
      if (name === manifest.name) continue;
      const into = shippedSet.has(file) ? shipped : testOnly;
      if (!into.has(name)) into.set(name, where);
    }
  }
  const problems: string[] = [];
  for (const [name, where] of shipped) {
    if (!shippedDeps.has(name)) problems.push(`${where} (shipped) imports ${name}, which is not in dependencies or peerDependencies`);
  }
  for (const [name, where] of testOnly) {
    if (!shippedDeps.has(name) && !devDeps.has(name))
      problems.push(`${where} (not shipped) imports ${name}, which neither its package.json nor the workspace root's lists`);
  }
  // A peer of a @yoke dependency may be passed on as a peer (zod: one copy, the app's).
  const passedOn = new Set(
    Object.keys(manifest.dependencies ?? {})
      .filter((dep) => dep.startsWith("@yoke/"))
      .flatMap((dep) => Object.keys(manifestOf(dep.slice("@yoke/".length)).peerDependencies ?? {})),
  );
  for (const name of shippedDeps) {
    if (shipped.has(name)) continue;
    if (manifest.peerDependencies?.[name] !== undefined && passedOn.has(name)) continue;
    problems.push(`lists ${name} in dependencies or peerDependencies, but no shipped file under src/ imports it`);
  }
  return problems;
}

/** The @yoke/* names a package.json field lists. */
const yokeNames = (field: Record<string, string> | undefined): string[] => Object.keys(field ?? {}).filter((name) => name.startsWith("@yoke/"));

/**
 * DESIGN.md "Packages and who may import whom", for package.json: @yoke/protocol lists no @yoke
 * package; a layer (every other package but the runtime, testkit included) depends on
 * @yoke/protocol alone and may take the @yoke/testkit doubles as a devDependency; the runtime
 * and the CLI (DESIGN.md: "the `yoke` CLI may live here or in @yoke/cli") compose layers but never
 * ship testkit. The source side is biome.jsonc's noRestrictedImports.
 */
export function layeringProblems(manifest: {
  name: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}): string[] {
  const shipped = [...yokeNames(manifest.dependencies), ...yokeNames(manifest.peerDependencies)];
  const dev = yokeNames(manifest.devDependencies);
  const problems: string[] = [];
  const forbid = (names: string[], allowed: (name: string) => boolean, field: string, why: string) => {
    for (const name of names) if (!allowed(name)) problems.push(`${manifest.name} lists ${name} in ${field}: ${why}`);
  };
  if (manifest.name === "@yoke/protocol") {
    forbid([...shipped, ...dev], () => false, "its dependencies", "@yoke/protocol is the bottom of the stack and depends on no @yoke package");
  } else if (manifest.name === "@yoke/runtime" || manifest.name === "@yoke/cli") {
    forbid(shipped, (name) => name !== "@yoke/testkit", "dependencies or peerDependencies", "the runtime and the CLI never ship the test doubles");
  } else {
    forbid(
      shipped,
      (name) => name === "@yoke/protocol",
      "dependencies or peerDependencies",
      "a layer depends on @yoke/protocol alone; only the runtime composes layers",
    );
    forbid(
      dev,
      (name) => name === "@yoke/protocol" || (name === "@yoke/testkit" && manifest.name !== name),
      "devDependencies",
      "a layer's tests use @yoke/protocol and the @yoke/testkit doubles; a test that composes layers belongs to the runtime or tests/",
    );
  }
  return problems;
}

/** Relative imports under packages/<dir>/src that resolve outside packages/<dir>: a way round the layering. */
export function escapingImports(dir: string): string[] {
  const packageDir = join(repoRoot, "packages", dir);
  const problems: string[] = [];
  for (const file of sourceFiles(join(packageDir, "src"))) {
    for (const m of readFileSync(file, "utf8").matchAll(/(?:from\s+|import\(\s*|require\(\s*)"(\.{1,2}\/[^"]+)"/g)) {
      const target = relative(packageDir, join(dirname(file), m[1]!));
      if (target.startsWith("..")) problems.push(`${relative(packageDir, file)} imports ${m[1]}, outside packages/${dir}`);
    }
  }
  return problems;
}
