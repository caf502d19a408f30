// What budget admission costs a turn, in instructions: the machine-independent twin of
// harness-budget.ts (whose microseconds a shared, loaded machine blurs). Each variant's run
// (harness-budget-run.ts) is counted under valgrind's callgrind at two lengths; the
// difference over the difference in turns is the instructions one more turn costs, with
// start-up and the run's first and last turns cancelled out. Deterministic
// inputs (stepping clock, sequential ids, scripted model), Node run with
// --predictable (no concurrent compiler or GC threads, deterministic heuristics). The default
// window, turns 100 to 300, is past start-up (between turns 20 and 80 a bare turn counts 5.07M
// instructions, 3.47M at 100-300) but not past every tier-up: a function called a few times a
// turn reaches Maglev after some 100-200 turns and TurboFan after some 500-1,000 (`--trace-opt`:
// 78 more compiles of the bare run's functions between turns 300 and 600, 12 between 600 and
// 1,000), so the window can be moved (`600 1000`).
// Two journals: memory (the harness's CPU alone: the dearest ratio; every variant) and a SQLite
// file at synchronous=NORMAL (the default store, SQLite's own instructions included; bare and
// budget). Slow: ten runs under valgrind, two at a time (~6 min in all at 100 300).
// Each count is given twice: all of it, and all but V8's optimizing compilers (Maglev and
// TurboFan, the inclusive cost of their tier-up calls). --predictable runs those compilers on
// the main thread, synchronously; a normal Node process runs them on background threads, so they
// are not a turn's time there. They also are not per-turn work: a function is compiled when it
// gets hot, once, and a budget's functions (called two to six times a turn) get hot later than
// the harness's, so its compiles land inside the window (between turns 100 and 300 the optimizing
// compilers are ~30 % of a bare turn's count).
// usage: node harness-budget-instructions.ts [shortTurns] [longTurns]  (prints one JSON line)
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const short = Number(process.argv[2] ?? "100");
const long = Number(process.argv[3] ?? "300");
const dir = mkdtempSync(join(tmpdir(), "yoke-bench-instructions-"));

/** What one run costs: every instruction, and those V8's optimizing compilers ran. */
interface Count {
  total: number;
  optimizing: number;
}

/** The runtime functions through which a function tiers up to Maglev or TurboFan (synchronously, under --predictable). */
const TIER_UP = ["Runtime_OptimizeMaglevEager(", "Runtime_OptimizeTurbofanEager(", "Runtime_CompileOptimized(", "Runtime_CompileOptimizedOSR("];

/**
 * A callgrind file's total, and the inclusive cost of the calls into TIER_UP made from outside
 * it. Names are compressed (`(id) name` the first time, `(id)` after); the line after a
 * `calls=` line holds that call's inclusive cost.
 */
function countOf(file: string): Count {
  const names = new Map<string, string>();
  const named = (line: string, prefix: string): string => {
    const match = /^\((\d+)\)(?: (.*))?$/.exec(line.slice(prefix.length).trim());
    if (match === null) return "";
    if (match[2] !== undefined) names.set(match[1]!, match[2]);
    return names.get(match[1]!) ?? "";
  };
  const isTierUp = (name: string) => TIER_UP.some((entry) => name.includes(entry));
  let total: number | undefined;
  let optimizing = 0;
  let caller = "";
  let callee = "";
  let afterCalls = false;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (afterCalls) {
      afterCalls = false;
      if (isTierUp(callee) && !isTierUp(caller)) optimizing += Number(line.split(" ").at(-1));
    } else if (line.startsWith("fn=")) caller = named(line, "fn=");
    else if (line.startsWith("cfn=")) callee = named(line, "cfn=");
    else if (line.startsWith("calls=")) afterCalls = true;
    else if (total === undefined && (line.startsWith("summary: ") || line.startsWith("totals: "))) total = Number(line.split(" ")[1]);
  }
  if (total === undefined) throw new Error(`no instruction total in ${file}`);
  return { total, optimizing };
}

function counted(variant: string, turns: number, store: string): Promise<Count> {
  const out = join(dir, `${variant}-${turns}-${store}.callgrind`);
  const child = spawn(
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
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-2000);
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (status) => {
      if (status !== 0) reject(new Error(`callgrind of ${variant} ${turns} ${store} failed (${status}): ${stderr}`));
      else resolve(countOf(out));
    });
  });
}

/** Runs `jobs` two at a time (callgrind counts instructions, so a loaded machine changes nothing but the wait). */
async function twoAtATime<T>(jobs: (() => Promise<T>)[]): Promise<T[]> {
  const results: T[] = new Array(jobs.length);
  let next = 0;
  const lane = async () => {
    while (next < jobs.length) {
      const at = next++;
      results[at] = await jobs[at]!();
    }
  };
  await Promise.all([lane(), lane()]);
  return results;
}

const plan: { store: string; variant: string }[] = [];
for (const store of ["memory", "sqlite"])
  for (const variant of store === "memory" ? ["bare", "plain", "budget"] : ["bare", "budget"]) plan.push({ store, variant });
const counts = await twoAtATime(plan.flatMap(({ store, variant }) => [() => counted(variant, short, store), () => counted(variant, long, store)]));
/** Per turn: the long run less the short run, over the turns between; `main` leaves the optimizing compilers out. */
const perTurn = new Map<string, { all: number; main: number }>();
plan.forEach(({ store, variant }, index) => {
  const [a, b] = [counts[2 * index]!, counts[2 * index + 1]!];
  perTurn.set(`${store} ${variant}`, {
    all: (b.total - a.total) / (long - short),
    main: (b.total - b.optimizing - (a.total - a.optimizing)) / (long - short),
  });
});
/** One way of counting (`all` or `main`) for one journal: per-turn counts, and the budget's share against bare (and against plain). */
function figures(store: string, of: "all" | "main") {
  const bare = perTurn.get(`${store} bare`)![of];
  const plain = perTurn.get(`${store} plain`)?.[of];
  const budget = perTurn.get(`${store} budget`)![of];
  return {
    bare: Math.round(bare),
    ...(plain === undefined ? {} : { plain: Math.round(plain), overheadRatio: (budget - plain) / plain }),
    budget: Math.round(budget),
    issueOverheadRatio: (budget - bare) / bare,
  };
}
const rows = ["memory", "sqlite"].map((store) => ({ store, all: figures(store, "all"), main: figures(store, "main") }));
rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify({ short, long, rows }));
