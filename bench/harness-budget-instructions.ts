// What budget admission costs a turn, in instructions: the machine-independent twin of
// harness-budget.ts (whose microseconds a shared, loaded machine blurs). Each variant's run
// (harness-budget-run.ts) is counted under valgrind's callgrind at two lengths; the
// difference over the difference in turns is the instructions one more turn costs, with
// start-up, JIT warm-up and the run's first and last turns cancelled out. Deterministic
// inputs (stepping clock, sequential ids, scripted model), Node run with
// --predictable (no concurrent compiler or GC threads, deterministic heuristics). The default
// window, turns 100 to 300, is the steady state: between turns 20 and 80 the JIT still compiles
// the code that gets hot there (on the main thread under --predictable), and a variant with more
// code (the budget) pays more of it: bare 5.07M instructions a turn at 20-80, 3.47M at 100-300.
// Two journals: memory (the harness's CPU alone: the dearest ratio; every variant) and a SQLite
// file at synchronous=NORMAL (the default store, SQLite's own instructions included; bare and
// budget). Slow: ~2-6 min a run, ten runs.
// usage: node harness-budget-instructions.ts [shortTurns] [longTurns]  (prints one JSON line)
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const short = Number(process.argv[2] ?? "100");
const long = Number(process.argv[3] ?? "300");
const dir = mkdtempSync(join(tmpdir(), "yoke-bench-instructions-"));

function instructions(variant: string, turns: number, store: string): number {
  const out = join(dir, `${variant}-${turns}-${store}.callgrind`);
  const run = spawnSync(
    "valgrind",
    [
      "--tool=callgrind",
      "--smc-check=all-non-file",
      `--callgrind-out-file=${out}`,
      process.execPath,
      "--predictable",
      join(import.meta.dirname, "harness-budget-run.ts"),
      variant,
      String(turns),
      store,
    ],
    { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  if (run.status !== 0) throw new Error(`callgrind of ${variant} ${turns} ${store} failed (${run.status}): ${run.stderr.slice(-2000)}`);
  const summary = /^(?:summary|totals): (\d+)/m.exec(readFileSync(out, "utf8"));
  if (summary === null) throw new Error(`no instruction total in ${out}`);
  return Number(summary[1]);
}

const perTurn = (variant: string, store: string) => (instructions(variant, long, store) - instructions(variant, short, store)) / (long - short);
const rows = [];
for (const store of ["memory", "sqlite"]) {
  const bare = perTurn("bare", store);
  const plain = store === "memory" ? perTurn("plain", store) : undefined;
  const budget = perTurn("budget", store);
  rows.push({
    store,
    bareInstructionsPerTurn: Math.round(bare),
    ...(plain === undefined ? {} : { plainInstructionsPerTurn: Math.round(plain), overheadRatio: (budget - plain) / plain }),
    budgetInstructionsPerTurn: Math.round(budget),
    issueOverheadRatio: (budget - bare) / bare,
  });
}
rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify({ short, long, rows }));
