// pnpm bench's adoption figures (issue 12): cold start and the install size of each package
// alone. Run on their own with `node bench/startup-and-size.ts [--quick]`.
import { fmt, median, printTable, runChild, runNode } from "./stats.ts";

interface ColdStartResult {
  mode: string;
  nodeStartMs: number;
  importMs: number;
  firstTurnMs: number;
  peakRssMb: number;
}
interface InstallSizeRow {
  name: string;
  tarballBytes: number;
  ownBytes: number;
  nodeModulesBytes: number;
  packages: number;
  largest: { name: string; bytes: number }[];
}

export async function benchStartupAndSize(quick: boolean): Promise<void> {
  // Cold start (issue 12): `import` of @yoke/runtime, @yoke/journal and @yoke/testkit, then a
  // harness's first turn, each round in fresh processes, interleaved with the baselines: a bare
  // `node -e` and the eager-tokenizer path (the o200k_base encoder loaded at import, as every
  // start paid before the tokenizer became lazy).
  const coldModes = ["bare node", "estimated", "exact", "eager"] as const;
  const coldRounds = quick ? 3 : 7;
  const cold = new Map<string, { wallMs: number[]; result: ColdStartResult[] }>(coldModes.map((mode) => [mode, { wallMs: [], result: [] }]));
  for (let round = 0; round < coldRounds; round += 1) {
    for (const mode of coldModes) {
      const started = performance.now();
      const result =
        mode === "bare node"
          ? runNode<ColdStartResult>([
              "-e",
              "console.log(JSON.stringify({ mode: 'bare', nodeStartMs: performance.now(), importMs: 0, firstTurnMs: 0, peakRssMb: process.resourceUsage().maxRSS / 1024 }))",
            ])
          : runChild<ColdStartResult>("cold-start.ts", [mode]);
      cold.get(mode)!.wallMs.push(performance.now() - started);
      cold.get(mode)!.result.push(result);
    }
  }
  const coldMedian = (mode: string, pick: (result: ColdStartResult) => number) => median(cold.get(mode)!.result.map(pick));
  const coldWall = (mode: string) => median(cold.get(mode)!.wallMs);
  printTable(
    `Cold start in a fresh process: import @yoke/runtime + journal + testkit, then a first turn (scripted model, memory journal); median of ${coldRounds} interleaved rounds`,
    ["path", "node boot ms", "import ms", "first turn ms", "process wall ms", "peak RSS MB", "wall / bare node", "wall / eager"],
    coldModes.map((mode) => [
      mode === "bare node"
        ? "bare `node -e`"
        : mode === "estimated"
          ? "estimated counts (default)"
          : mode === "exact"
            ? "exact counts (gpt-4o): lazy load"
            : "eager tokenizer (before)",
      fmt(
        coldMedian(mode, (r) => r.nodeStartMs),
        1,
      ),
      fmt(
        coldMedian(mode, (r) => r.importMs),
        1,
      ),
      fmt(
        coldMedian(mode, (r) => r.firstTurnMs),
        1,
      ),
      fmt(coldWall(mode), 1),
      fmt(
        coldMedian(mode, (r) => r.peakRssMb),
        1,
      ),
      fmt(coldWall(mode) / coldWall("bare node"), 2),
      fmt(coldWall(mode) / coldWall("eager"), 2),
    ]),
  );

  // Install size of each package alone, from the local registry of the registry round trip.
  const mb = (bytes: number) => fmt(bytes / 1024 / 1024, 2);
  const sizes = runChild<InstallSizeRow[]>("install-size.ts", []);
  printTable(
    "Install size of each package alone: `npm install <package>` in a fresh project from the local registry (required peers included, optional ones not)",
    ["package", "tarball KiB", "unpacked KiB", "node_modules MB", "packages", "largest dependencies (MB)"],
    sizes.map((row) => [
      row.name,
      fmt(row.tarballBytes / 1024),
      fmt(row.ownBytes / 1024),
      mb(row.nodeModulesBytes),
      String(row.packages),
      row.largest.map((dep) => `${dep.name} ${mb(dep.bytes)}`).join(", "),
    ]),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await benchStartupAndSize(process.argv.includes("--quick"));
