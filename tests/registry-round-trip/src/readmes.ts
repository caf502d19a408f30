// What an adopter reads in a package README: the install line, the first snippet and what the
// snippet says it prints. Shared by the round-trip test and the cache warmer of bootstrap.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

/** One package README, as an adopter follows it. */
export interface ReadmeGuide {
  /** The folder under packages/, e.g. `journal`. */
  readonly dir: string;
  /** The package name, e.g. `@yoke/journal`. */
  readonly name: string;
  /**
   * A second way in the same README (`<!-- round-trip: zod3 -->` before its own install line
   * and snippet), e.g. an app that stays on zod 3; absent for the README's first guide.
   */
  readonly variant?: string;
  /** Every package the README's install lines name (`pnpm add` and `pnpm add -D` alike). */
  readonly install: readonly string[];
  /** The first ```ts block, verbatim. */
  readonly snippet: string;
  /** What the snippet says it prints: the comment closing each `console.log(…)` line, in order. */
  readonly expectations: readonly string[];
}

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

export function packageDirs(): string[] {
  return readdirSync(join(repoRoot, "packages")).sort();
}

export function manifestOf(dir: string): Manifest {
  return JSON.parse(readFileSync(join(repoRoot, "packages", dir, "package.json"), "utf8")) as Manifest;
}

/** Reads a package README; throws naming the README when it lacks an install line or a snippet. */
export function readGuide(dir: string): ReadmeGuide {
  const path = `packages/${dir}/README.md`;
  return guideFrom(dir, path, readFileSync(join(repoRoot, path), "utf8"));
}

/**
 * A README's first guide, then each variant: the text after a `<!-- round-trip: NAME -->`
 * marker, read as a guide of its own (its first install block and first snippet).
 */
export function readGuides(dir: string): ReadmeGuide[] {
  const path = `packages/${dir}/README.md`;
  const readme = readFileSync(join(repoRoot, path), "utf8");
  const variants = [...readme.matchAll(/<!-- round-trip: ([a-z0-9-]+) -->/g)].map((marker) => {
    const name = marker[1]!;
    const guide = guideFrom(dir, `${path} (round-trip: ${name})`, readme.slice(marker.index! + marker[0].length));
    return { ...guide, variant: name };
  });
  return [guideFrom(dir, path, readme), ...variants];
}

/** How a guide is named in test titles and reports: `runtime`, or `runtime#zod3` for a variant. */
export function guideLabel(guide: ReadmeGuide): string {
  return guide.variant === undefined ? guide.dir : `${guide.dir}#${guide.variant}`;
}

function guideFrom(dir: string, path: string, readme: string): ReadmeGuide {
  const installBlock = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!).find((block) => /^pnpm add /m.test(block));
  if (!installBlock) throw new Error(`${path} has no install line (a \`\`\`sh block with \`pnpm add …\`)`);
  const install = installBlock
    .split("\n")
    .filter((line) => line.startsWith("pnpm add "))
    .flatMap((line) => line.replace(/#.*/, "").trim().split(/\s+/).slice(2))
    .filter((word) => !word.startsWith("-"));
  const snippet = readme.match(/```ts\n([\s\S]*?)```/)?.[1];
  if (!snippet) throw new Error(`${path} has no \`\`\`ts snippet`);
  const expectations = snippet
    .split("\n")
    .map((line) => line.match(/console\.log\(.*\);?\s*\/\/\s*(.+)$/)?.[1]?.trim())
    .filter((comment): comment is string => comment !== undefined);
  return { dir, name: manifestOf(dir).name, install: [...new Set(install)], snippet, expectations };
}

const normalize = (text: string): string => text.replace(/"/g, "'").replace(/\s+/g, " ").trim();

/**
 * The expectations `stdout` does not meet, checked in order. A README comment matches printed
 * text when they are equal once quotes are made single and runs of spaces and line breaks
 * collapsed to one space (Node prints a long object over several lines); `…` in the comment
 * stands for any text (`{ ok: true, headHash: "…" }`).
 */
export function unmetExpectations(expectations: readonly string[], stdout: string): string[] {
  const printed = normalize(stdout);
  let from = 0;
  const unmet: string[] = [];
  for (const expected of expectations) {
    const parts = normalize(expected)
      .split("…")
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    const match = new RegExp(parts.join(".*?"), "g");
    match.lastIndex = from;
    const found = match.exec(printed);
    if (found) from = found.index + found[0].length;
    else unmet.push(expected);
  }
  return unmet;
}

/**
 * The third-party packages (`name@range`, or a bare name for the latest) an `npm install` of
 * `install` resolves: the names it gives outside @yoke, and for each @yoke package the
 * dependencies and required peers of it and of the @yoke packages it depends on. Installing
 * these through a caching registry stores every tarball the real install will ask for.
 */
export function thirdPartySpecs(install: readonly string[], catalog: Record<string, string>): string[] {
  const specs = new Set<string>();
  const seen = new Set<string>();
  const byName = new Map(packageDirs().map((dir) => [manifestOf(dir).name, manifestOf(dir)]));
  const visit = (name: string): void => {
    if (seen.has(name)) return;
    seen.add(name);
    const manifest = byName.get(name);
    if (!manifest) throw new Error(`${name} is not a package of this workspace`);
    const required = Object.entries(manifest.peerDependencies ?? {}).filter(([peer]) => !manifest.peerDependenciesMeta?.[peer]?.optional);
    for (const [dep, range] of [...Object.entries(manifest.dependencies ?? {}), ...required]) {
      if (dep.startsWith("@yoke/")) visit(dep);
      else specs.add(`${dep}@${range === "catalog:" ? catalog[dep] : range}`);
    }
  };
  for (const name of install) {
    if (name.startsWith("@yoke/")) visit(name);
    else specs.add(name);
  }
  return [...specs].sort();
}

/** The default catalog of pnpm-workspace.yaml (`name: version` lines under `catalog:`). */
export function workspaceCatalog(): Record<string, string> {
  const yaml = readFileSync(join(repoRoot, "pnpm-workspace.yaml"), "utf8");
  const block = yaml.match(/^catalog:\n((?:[ \t]+.*\n?)*)/m)?.[1] ?? "";
  return Object.fromEntries(
    block
      .split("\n")
      .map((line) => line.match(/^\s+"?([^":]+)"?:\s*(\S+)/))
      .filter((m): m is RegExpMatchArray => m !== null)
      .map((m) => [m[1]!, m[2]!]),
  );
}
