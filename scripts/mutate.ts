// `pnpm mutate [package…]`: mutation testing (StrykerJS, vitest runner, TypeScript checker) of
// the code whose guarantees are the product. On demand, not in CI. One package at a time,
// smallest first, with one test process (YOKE_MUTATE_CONCURRENCY to change it): the machine
// is shared. Incremental: each package's results are kept in
// reports/mutation/<package>.incremental.json (committed), so a run after a change re-tests
// only the mutants in changed code or covered by changed tests: minutes, not hours.
// Writes reports/mutation/<package>.report.json (mutation-testing-elements JSON, not kept in git) and prints the
// score and the survivors. Stryker mutates the files in place and restores them when it
// ends: do not edit a package's sources while it is being mutated. YOKE_MUTATE_FORCE=1 re-tests every
// mutant; YOKE_MUTATE_IGNORE_STATIC=1 skips the static ones (see below).
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");

/** What is mutated, per package, smallest first. */
export const TARGETS: Record<string, readonly string[]> = {
  // The fold and the action state machine.
  protocol: ["src/actions.ts", "src/run-state.ts", "src/run-state-calls.ts"],
  // The runtime loop.
  runtime: ["src/loop/**/*.ts", "!src/loop/**/*.test.ts"],
  // Budgets: evidence fill, the output reserve, tool-output byte budgets, overflow.
  "context-compiler": ["src/evidence.ts", "src/overflow.ts", "src/compiler.ts", "src/compiler-setup.ts", "src/render.ts", "src/layout.ts"],
  scheduler: ["src/**/*.ts", "!src/**/*.test.ts", "!src/**/*.test-d.ts", "!src/__fixtures__/**", "!src/index.ts"],
  // The ledger: hierarchical reservations, admission, settlement and its arithmetic.
  budget: [
    "src/ledger.ts",
    "src/ledger-tree.ts",
    "src/ledger-admission.ts",
    "src/ledger-settlement.ts",
    "src/ledger-reporting.ts",
    "src/ledger-replay.ts",
    "src/amounts.ts",
  ],
  // The hash chain, optimistic concurrency, atomic batches, idempotency and leases.
  journal: [
    "src/chain.ts",
    "src/memory-journal.ts",
    "src/sqlite-journal.ts",
    "src/sqlite-event-statements.ts",
    "src/idempotency-memory.ts",
    "src/idempotency-sqlite.ts",
    "src/lease-rules.ts",
    "src/sqlite-leases.ts",
  ],
  // Issue 33: the packages whose mutants had been tried by hand only.
  // The run span's status and attributes from the journal (a failed run must never export as a normal span).
  otel: ["src/run-spans.ts", "src/model-call-spans.ts", "src/action-spans.ts", "src/span-host.ts", "src/span-observer.ts"],
  // Pinning, drift and re-admission of tool revisions, discovery, the digests a run pins.
  "tool-registry": [
    "src/changes.ts",
    "src/digests.ts",
    "src/discovery.ts",
    "src/readmission.ts",
    "src/registry.ts",
    "src/live-tools.ts",
    "src/source-sync.ts",
    "src/resolution.ts",
    "src/remote-tool.ts",
    "src/sources.ts",
  ],
  // MCP sources: error mapping (unknown outcome vs unavailable), content conversion, origins, stdio's environment.
  mcp: ["src/content.ts", "src/http.ts", "src/source.ts", "src/stdio.ts"],
  // Verdicts: command, evidence, invariant and schema verifiers, composition, citations, bounded output.
  verifier: ["src/**/*.ts", "!src/**/*.test.ts", "!src/**/*.test-d.ts", "!src/__fixtures__/**", "!src/index.ts"],
  // Rule matching (fail closed), globs, the document's validation and digests; capabilities: tokens, scope, attenuation.
  policy: [
    "src/engine.ts",
    "src/compile-rule.ts",
    "src/glob.ts",
    "src/policy-document.ts",
    "src/digests.ts",
    "src/builders.ts",
    "src/capabilities/broker.ts",
    "src/capabilities/scope.ts",
    "src/capabilities/token.ts",
  ],
  // The viewer's guards (Host, read-only, CSP, paging), import's chain check before any write,
  // read-only opening, terminal escaping. Most command tests run the built CLI (dist/) in a child
  // process, which a mutant of src/ does not reach: only the in-process tests judge these files.
  cli: [
    "src/viewer/server.ts",
    "src/viewer/viewer-data.ts",
    "src/transfer/run-export.ts",
    "src/store/open-store.ts",
    "src/format/text.ts",
    "src/commands/import.ts",
  ],
};

const requested = process.argv.slice(2);
const unknown = requested.filter((name) => !(name in TARGETS));
if (unknown.length > 0) {
  process.stderr.write(`unknown package(s): ${unknown.join(", ")}; choose from ${Object.keys(TARGETS).join(", ")}\n`);
  process.exit(2);
}
const packages = requested.length > 0 ? requested : Object.keys(TARGETS);
const concurrency = Number(process.env.YOKE_MUTATE_CONCURRENCY ?? 1);
const reports = join(root, "reports", "mutation");
mkdirSync(reports, { recursive: true });

let status = 0;
for (const name of packages) {
  // YOKE_MUTATE_FILES (comma-separated globs under the package) narrows one run, e.g. to a file you changed.
  const patterns = process.env.YOKE_MUTATE_FILES?.split(",").filter(Boolean) ?? TARGETS[name]!;
  const config = {
    packageManager: "pnpm",
    // By path: under pnpm, Stryker's own plugin discovery does not see its sibling packages.
    plugins: ["vitest-runner", "typescript-checker"].map((plugin) => join(root, "node_modules/@stryker-mutator", plugin, "dist/src/index.js")),
    testRunner: "vitest",
    vitest: { configFile: "scripts/vitest-mutate.config.ts", related: true },
    checkers: ["typescript"],
    tsconfigFile: `packages/${name}/tsconfig.json`,
    typescriptChecker: { prioritizePerformanceOverAccuracy: true },
    mutate: patterns.map((pattern) => (pattern.startsWith("!") ? `!packages/${name}/${pattern.slice(1)}` : `packages/${name}/${pattern}`)),
    inPlace: true,
    // Stryker would otherwise prepend "// @ts-nocheck" to every TypeScript file of the repo while it
    // runs (in place!); vitest does not type-check, and the TypeScript checker judges each mutant.
    disableTypeChecks: false,
    concurrency,
    coverageAnalysis: "perTest",
    incremental: true,
    incrementalFile: `reports/mutation/${name}.incremental.json`,
    reporters: ["clear-text", "json", "progress"],
    jsonReporter: { fileName: `reports/mutation/${name}.report.json` },
    clearTextReporter: { allowColor: false, logTests: false, allowEmojis: false, reportScoreTable: true, reportMutants: true },
    tempDirName: ".stryker-tmp",
    timeoutMS: 20_000,
    timeoutFactor: 2,
    // The initial test run of a whole package took 8.5 min at load 25-30 on a shared 2-core machine;
    // Stryker's default (5 min) gives up on it. YOKE_MUTATE_DRY_RUN_MINUTES overrides.
    dryRunTimeoutMinutes: Number(process.env.YOKE_MUTATE_DRY_RUN_MINUTES ?? 40),
    thresholds: { high: 90, low: 75, break: null },
    // YOKE_MUTATE_FORCE=1: re-test every mutant, not only the changed ones (the incremental file keeps a
    // survivor's old verdict until its code or its covering tests change, even when a new test kills it).
    ...(process.env.YOKE_MUTATE_FORCE === "1" ? { force: true } : {}),
    // YOKE_MUTATE_IGNORE_STATIC=1: skip "static" mutants (reached outside any test), which Stryker runs
    // against the whole suite each; in runtime 44-62 % of mutants were static (work outliving its test).
    ...(process.env.YOKE_MUTATE_IGNORE_STATIC === "1" ? { ignoreStatic: true } : {}),
  };
  process.stdout.write(`\n== mutating ${name}: ${config.mutate.join(" ")} (concurrency ${concurrency})\n`);
  // A fixed fast-check seed unless one is given: a mutant's verdict must not depend on the draw.
  const env = { ...process.env, YOKE_MUTATE_PACKAGE: name, YOKE_FC_SEED: process.env.YOKE_FC_SEED ?? "20261202" };
  const configFile = join(root, ".stryker-tmp", `${name}.config.json`);
  mkdirSync(join(root, ".stryker-tmp"), { recursive: true });
  writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`);
  const run = spawnSync(process.execPath, [join(root, "node_modules/@stryker-mutator/core/bin/stryker.js"), "run", configFile], {
    cwd: root,
    env,
    stdio: "inherit",
  });
  if (run.status !== 0) status = run.status ?? 1;
}
process.exit(status);
