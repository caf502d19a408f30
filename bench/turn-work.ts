// What a turn does, counted so that neither the machine nor V8's heuristics move the figure: the
// JavaScript functions it calls (V8's precise coverage, NODE_V8_COVERAGE), the promises it
// creates (async_hooks) and, under valgrind, the instructions it runs with every V8 compiler
// but the interpreter turned off (--no-opt --no-maglev --no-sparkplug --predictable).
//
// Why a second instruction count beside harness-budget-instructions.ts: with the optimizing
// compilers on, a turn's count includes whatever tier-ups, deoptimizations and slices of a
// start-up garbage collection land inside the measured window, and those move with code that a
// turn never runs. Two builds that differ only in how a package's entry points are bundled
// (per-turn function calls and promises identical, interpreted instructions within 0.1 %) were
// measured 2.0 % apart at turns 100-300 and 15 % apart, the other way, at turns 600-1,000. The
// interpreted count has no such events: the same build gives the same figure to within 0.05 %,
// so a change of a few tenths of a percent in what a turn does is visible in it.
//
// Each count is taken at two run lengths; the difference over the difference in turns is one
// more turn's work (start-up and the first and last turns cancel out). Deterministic inputs as in
// harness-budget-run.ts (a bare turn: scripted model, two no-op tools, memory journal).
// usage: node turn-work.ts [shortTurns] [longTurns]  (prints one JSON line)
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const short = Number(process.argv[2] ?? "20");
const long = Number(process.argv[3] ?? "60");
const dir = mkdtempSync(join(tmpdir(), "yoke-bench-turn-work-"));
const run = join(import.meta.dirname, "harness-budget-run.ts");

/** Runs the bare turn `turns` times in a child process with `flags` and `env`, failing loudly. */
function child(turns: number, flags: readonly string[], env: NodeJS.ProcessEnv = {}, wrap: readonly string[] = []): string {
  const [command, ...args] = [...wrap, process.execPath, ...flags, run, "bare", String(turns), "memory"];
  const result = spawnSync(command!, args, { env: { ...process.env, ...env }, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} failed (${result.status}): ${result.stderr.slice(-2000)}`);
  return result.stderr;
}

/** Calls of the project's own functions (packages/*) in one run: the sum of V8's per-function invocation counts. */
function calls(turns: number): number {
  const out = join(dir, `coverage-${turns}`);
  child(turns, [], { NODE_V8_COVERAGE: out });
  let total = 0;
  for (const file of readdirSync(out)) {
    const { result } = JSON.parse(readFileSync(join(out, file), "utf8")) as { result: { url: string; functions: { ranges: { count: number }[] }[] }[] };
    for (const script of result) {
      if (!script.url.includes("/packages/")) continue;
      for (const fn of script.functions) total += fn.ranges[0]!.count;
    }
  }
  return total;
}

/** Promises created in one run (async_hooks, every PROMISE init). */
function promises(turns: number): number {
  const hook = join(dir, "count-promises.mjs");
  writeFileSync(
    hook,
    [
      'import { createHook } from "node:async_hooks";',
      "let promises = 0;",
      'createHook({ init(_id, type) { if (type === "PROMISE") promises++; } }).enable();',
      'process.on("exit", () => process.stderr.write("\\nPROMISES " + promises + "\\n"));',
    ].join("\n"),
  );
  const found = /PROMISES (\d+)/.exec(child(turns, ["--import", hook]));
  if (found === null) throw new Error("the promise count was not printed");
  return Number(found[1]);
}

/** Instructions of one run with the interpreter alone (callgrind's total). */
function interpreted(turns: number): number {
  const out = join(dir, `interpreted-${turns}.callgrind`);
  child(turns, ["--predictable", "--no-opt", "--no-maglev", "--no-sparkplug"], {}, ["valgrind", "--tool=callgrind", `--callgrind-out-file=${out}`]);
  const summary = /^summary: (\d+)/m.exec(readFileSync(out, "utf8"));
  if (summary === null) throw new Error(`no instruction total in ${out}`);
  return Number(summary[1]);
}

const perTurn = (count: (turns: number) => number) => (count(long) - count(short)) / (long - short);
const hasValgrind = spawnSync("valgrind", ["--version"]).status === 0;
const figures = {
  short,
  long,
  callsPerTurn: perTurn(calls),
  promisesPerTurn: perTurn(promises),
  interpretedInstructionsPerTurn: hasValgrind ? Math.round(perTurn(interpreted)) : null,
};
rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify(figures));
