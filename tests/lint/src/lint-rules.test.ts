// Each rule of the repository's biome.jsonc, run by the pinned Biome on a throwaway tree shaped
// like the repository: the layering of docs/ARCHITECTURE.md ("Layers: who may import whom"), no
// import of another package's internals, import cycles, and the formatter with the files it must
// leave alone. A rule that stopped firing (a glob that no longer matches, an override that
// swallows another) fails here, not in review.
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const biome = join(repoRoot, "node_modules", ".bin", "biome");

interface Finding {
  readonly rule: string;
  readonly path: string;
}

const trees: string[] = [];
afterEach(() => {
  for (const tree of trees.splice(0)) rmSync(tree, { recursive: true, force: true });
});

/** Writes `files` beside a copy of the repository's biome.jsonc and runs `biome <command>` there; returns every finding. */
function biomeOn(files: Record<string, string>, command: "lint" | "check" = "lint"): Finding[] {
  const tree = mkdtempSync(join(tmpdir(), "yoke-lint-"));
  trees.push(tree);
  copyFileSync(join(repoRoot, "biome.jsonc"), join(tree, "biome.jsonc"));
  // Only node_modules is git-ignored here, so what the tree skips is biome.jsonc's own doing.
  writeFileSync(join(tree, ".gitignore"), "node_modules/\n");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(tree, path)), { recursive: true });
    writeFileSync(join(tree, path), text);
  }
  const run = spawnSync(biome, [command, "--error-on-warnings", "--max-diagnostics=none", "--reporter=json", "."], { cwd: tree, encoding: "utf8" });
  if (run.error !== undefined) throw run.error;
  const report = JSON.parse(run.stdout) as { diagnostics: { category: string; location: { path: string } }[] };
  const findings = report.diagnostics.map((diagnostic) => ({ rule: diagnostic.category, path: diagnostic.location.path }));
  expect(run.status, `biome ${command} exits non-zero exactly when it finds something: ${run.stderr}`).toBe(findings.length === 0 ? 0 : 1);
  return findings.sort((a, b) => a.path.localeCompare(b.path) || a.rule.localeCompare(b.rule));
}

const LAYERING = "lint/style/noRestrictedImports";
const CYCLE = "lint/suspicious/noImportCycles";
const importing = (...specifiers: string[]) =>
  specifiers.map((specifier, index) => `import * as m${index} from "${specifier}";\nexport { m${index} };\n`).join("");

describe("the layering of docs/ARCHITECTURE.md (biome.jsonc noRestrictedImports)", () => {
  it("a layer's shipped code imports @yoke/protocol, and no other layer, by import, re-export or dynamic import", () => {
    const findings = biomeOn({
      "packages/scheduler/src/uses-protocol.ts": importing("@yoke/protocol", "zod", "node:fs"),
      "packages/scheduler/src/uses-journal.ts": importing("@yoke/journal"),
      "packages/scheduler/src/re-exports-compiler.ts": 'export { compile } from "@yoke/context-compiler";\n',
      "packages/scheduler/src/loads-runtime.ts": 'export const load = () => import("@yoke/runtime");\n',
      "packages/provider-openai/src/uses-subpath.ts": importing("@yoke/testkit/replay"),
    });
    expect(findings).toEqual([
      { rule: LAYERING, path: "packages/provider-openai/src/uses-subpath.ts" },
      { rule: LAYERING, path: "packages/scheduler/src/loads-runtime.ts" },
      { rule: LAYERING, path: "packages/scheduler/src/re-exports-compiler.ts" },
      { rule: LAYERING, path: "packages/scheduler/src/uses-journal.ts" },
    ]);
  });

  it("a package directory nobody has listed yet is a layer", () => {
    expect(biomeOn({ "packages/provider-gemini/src/index.ts": importing("@yoke/protocol", "@yoke/context-compiler") })).toEqual([
      { rule: LAYERING, path: "packages/provider-gemini/src/index.ts" },
    ]);
  });

  it("a layer's tests, fixtures and test support may use @yoke/testkit, but compose no other layer", () => {
    const findings = biomeOn({
      "packages/journal/src/store.test.ts": importing("@yoke/protocol", "@yoke/testkit", "@yoke/testkit/contracts"),
      "packages/journal/src/__fixtures__/worker.ts": importing("@yoke/testkit/arbitraries"),
      "packages/provider-openai/src/test-support.ts": importing("@yoke/testkit/replay"),
      "packages/scheduler/src/with-journal.test.ts": importing("@yoke/journal"),
      "packages/journal/src/ships-testkit.ts": importing("@yoke/testkit"),
    });
    expect(findings).toEqual([
      { rule: LAYERING, path: "packages/journal/src/ships-testkit.ts" },
      { rule: LAYERING, path: "packages/scheduler/src/with-journal.test.ts" },
    ]);
  });

  it("@yoke/protocol imports no @yoke package, not even in its tests", () => {
    expect(biomeOn({ "packages/protocol/src/a.ts": importing("@yoke/journal"), "packages/protocol/src/a.test.ts": importing("@yoke/testkit") })).toEqual([
      { rule: LAYERING, path: "packages/protocol/src/a.test.ts" },
      { rule: LAYERING, path: "packages/protocol/src/a.ts" },
    ]);
  });

  it("the runtime composes layers; only its tests use @yoke/testkit", () => {
    const findings = biomeOn({
      "packages/runtime/src/harness.ts": importing("@yoke/protocol", "@yoke/journal", "@yoke/scheduler", "@yoke/context-compiler"),
      "packages/runtime/src/harness.test.ts": importing("@yoke/journal", "@yoke/testkit"),
      "packages/runtime/src/__fixtures__/rig.ts": importing("@yoke/testkit"),
      "packages/runtime/src/ships-testkit.ts": importing("@yoke/testkit"),
    });
    expect(findings).toEqual([{ rule: LAYERING, path: "packages/runtime/src/ships-testkit.ts" }]);
  });

  it("examples, tests/ and bench compose anything", () => {
    const all = importing("@yoke/runtime", "@yoke/journal", "@yoke/provider-openai", "@yoke/testkit");
    expect(biomeOn({ "examples/demo/src/main.ts": all, "tests/e2e/src/e2e.test.ts": all, "bench/run.ts": all })).toEqual([]);
  });
});

describe("no package's internals (biome.jsonc noRestrictedImports, docs/decisions/0021-no-internal-imports.md)", () => {
  const internals = ["@yoke/protocol/internal", "@yoke/scheduler/internal", "@yoke/runtime/src/loop.js", "@yoke/journal/dist/index.js"];

  it("fires on an /internal entry, src/ or dist/ of any package, from any file: layer, its tests, runtime, CLI, examples, tests/, bench", () => {
    const files: Record<string, string> = {
      "packages/provider-openai/src/transport.ts": importing("@yoke/protocol/internal"),
      "packages/journal/src/chain.ts": importing("@yoke/protocol/src/events.js"),
      "packages/scheduler/src/action-book.test.ts": importing("@yoke/protocol/internal"),
      "packages/testkit/src/provider-contract.ts": importing("@yoke/protocol/dist/internal.js"),
      "packages/runtime/src/bound-output.ts": importing("@yoke/context-compiler/internal"),
      "packages/runtime/src/loop-entry.ts": 'export { errorEnvelope } from "@yoke/scheduler/internal";\n',
      "packages/runtime/src/idempotent-call.test.ts": importing("@yoke/scheduler/internal"),
      "packages/cli/src/inspect/inspect-actions.ts": importing("@yoke/protocol/internal"),
      "packages/cli/src/inspect/inspect.test.ts": 'export const load = () => import("@yoke/protocol/internal");\n',
      "packages/provider-gemini/src/index.ts": importing("@yoke/protocol/internal/errors"),
    };
    for (const [index, specifier] of internals.entries()) {
      files[`examples/demo/src/uses-${index}.ts`] = importing(specifier);
      files[`tests/e2e/src/uses-${index}.test.ts`] = importing(specifier);
      files[`bench/uses-${index}.ts`] = importing(specifier);
    }
    const findings = biomeOn(files);
    expect(findings).toEqual(
      Object.keys(files)
        .map((path) => ({ rule: LAYERING, path }))
        .sort((a, b) => a.path.localeCompare(b.path)),
    );
  });

  it("passes on the public entries and on a package's own modules by relative path", () => {
    const findings = biomeOn({
      "packages/provider-openai/src/transport.ts": importing("@yoke/protocol", "@yoke/protocol/provider-utils"),
      "packages/journal/src/chain.ts": importing("@yoke/protocol/journal-utils"),
      "packages/scheduler/src/action-book.test.ts": importing("@yoke/protocol/journal-utils", "@yoke/testkit", "./internal.js", "../src/envelopes.js"),
      "packages/scheduler/src/internal.ts": "export const internal = 1;\n",
      "packages/scheduler/src/envelopes.ts": "export const envelopes = 1;\n",
      "packages/runtime/src/bound-output.ts": importing("@yoke/context-compiler", "@yoke/scheduler", "./internal-state.js"),
      "packages/runtime/src/internal-state.ts": "export const state = 1;\n",
      "packages/runtime/src/custom-loop.test.ts": importing("@yoke/runtime/loop", "@yoke/testkit/replay"),
      "packages/cli/src/inspect/inspect-actions.ts": importing("@yoke/protocol/journal-utils", "@yoke/journal"),
      "examples/demo/src/main.ts": importing("@yoke/runtime", "@yoke/runtime/loop", "@yoke/protocol/provider-utils"),
      "tests/e2e/src/e2e.test.ts": importing("@yoke/journal", "@yoke/testkit/crash", "@yoke/internal-tools"),
    });
    expect(findings).toEqual([]);
  });
});

describe("import cycles (biome.jsonc noImportCycles)", () => {
  it("a cycle fails, a type-only cycle too; a chain passes", () => {
    const findings = biomeOn({
      "packages/journal/src/a.ts": 'import { b } from "./b.js";\nexport const a = (): number => b() + 1;\n',
      "packages/journal/src/b.ts": 'import { a } from "./a.js";\nexport const b = (): number => a() - 1;\n',
      "packages/scheduler/src/item.ts": 'import type { Batch } from "./batch.js";\nexport interface Item {\n  readonly batch: Batch;\n}\n',
      "packages/scheduler/src/batch.ts": 'import type { Item } from "./item.js";\nexport interface Batch {\n  readonly items: readonly Item[];\n}\n',
      "packages/context-compiler/src/top.ts": 'import { middle } from "./middle.js";\nexport const top = middle;\n',
      "packages/context-compiler/src/middle.ts": 'import { bottom } from "./bottom.js";\nexport const middle = bottom;\n',
      "packages/context-compiler/src/bottom.ts": "export const bottom = 1;\n",
    });
    expect(findings).toEqual([
      { rule: CYCLE, path: "packages/journal/src/a.ts" },
      { rule: CYCLE, path: "packages/journal/src/b.ts" },
      { rule: CYCLE, path: "packages/scheduler/src/batch.ts" },
      { rule: CYCLE, path: "packages/scheduler/src/item.ts" },
    ]);
  });
});

describe("the formatter (biome check)", () => {
  it("passes the house style, fails another, and leaves recorded wire bytes, dist, .toolchain and lockfiles alone", () => {
    const otherStyle = "export const greeting = 'hello'\n";
    const findings = biomeOn(
      {
        "packages/journal/src/house.ts": "export const shout = (name: string): string => name.toUpperCase();\nexport const list = [1, 2, 3];\n",
        "packages/journal/src/other.ts": otherStyle,
        "packages/journal/package.json": '{"name":"@yoke/journal",   "version":"0.1.0"}\n',
        "packages/provider-openai/src/__fixtures__/error-429.json": '{"error":{"message":"Rate limit",   "type":"requests"}}\n',
        "packages/provider-openai/src/__fixtures__/run.jsonl": '{"a":1}\n{"b":   2}\n',
        "packages/provider-openai/src/__fixtures__/turn-1.sse": 'data: {"a":   1}\n\n',
        "packages/journal/dist/index.js": otherStyle,
        ".toolchain/tool.js": otherStyle,
        ".toolchain/package-lock.json": '{"lockfileVersion":   3}\n',
        "pnpm-publish-summary.json": '{"publishedPackages":   []}\n',
      },
      "check",
    );
    expect(findings).toEqual([
      { rule: "format", path: "packages/journal/package.json" },
      { rule: "format", path: "packages/journal/src/other.ts" },
    ]);
  });
});
