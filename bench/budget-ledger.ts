// Budget ledger admission: reserve + settle of one model call per second, and per-pair
// p50/p99, with the call directly under the run's budget (depth 1) and under a 3-level tree
// (budget → subagent → verifier → call: depth 3), both measured in the same process with rounds
// interleaved, so the depth 3 / depth 1 ratio is the cost of the ancestors. Each window starts
// from a fresh ledger (a run's ledger holds every reservation it ever made; a window adds up
// to a few thousand, like a long run). Prints one JSON line.
//   throughput: reserve+settle pairs in windows of ~5 ms, ten per round, median of all windows;
//   p50 / p99: every pair timed alone with process.hrtime.bigint() over all rounds
//              (the timer's own cost, `timerNs`, is included and printed next to it);
//   fold: foldBudget over the journaled events of one window (events per second).
// usage: node budget-ledger.ts [rounds]
import { type BudgetLedger, createBudgetLedger, foldBudget } from "@yoke/budget";
import { type ChargeAttribution, GENESIS_HASH, type YokeEvent } from "@yoke/protocol";
import { median } from "./stats.ts";

const rounds = Number(process.argv[2] ?? "7");
const SAMPLES_PER_ROUND = 10_000;
const DEPTHS = [1, 3] as const;
const CALL: ChargeAttribution = { kind: "model_call", runId: "run-1", turnId: "turn-1" };
const RESERVE = { turns: 1, tokens: 2_000, spend: 5_000 };
const ACTUAL = { turns: 1, input_tokens: 800, output_tokens: 200, spend: 3_000 };

/** A fresh ledger and the reservation calls reserve from at `depth`. */
function tree(depth: number): { ledger: BudgetLedger; parentId: string } {
  const ledger = createBudgetLedger({ budgetId: "b", limits: { turns: 1e9, tokens: 1e12, spend: 1e12, concurrency: 64, fan_out: 1_000 } });
  if (depth === 1) return { ledger, parentId: "b" };
  ledger.reserve({
    reservationId: "sub",
    parentId: "b",
    amounts: { turns: 1e8, tokens: 1e10, spend: 1e10, concurrency: 1, fan_out: 1 },
    attribution: { kind: "subagent", runId: "run-1", actionId: "a1", childRunId: "run-2" },
  });
  ledger.reserve({
    reservationId: "verify",
    parentId: "sub",
    amounts: { turns: 1e7, tokens: 1e9, spend: 1e9 },
    attribution: { kind: "verifier", runId: "run-1" },
  });
  return { ledger, parentId: "verify" };
}

let sink = 0;
let counter = 0;

function pair(ledger: BudgetLedger, parentId: string): void {
  const reservationId = `c${counter++}`;
  const result = ledger.reserve({ reservationId, parentId, amounts: RESERVE, attribution: CALL });
  if (!result.ok) throw new Error(`refused: ${JSON.stringify(result)}`);
  sink += ledger.settle(reservationId, ACTUAL).charged.tokens ?? 0;
}

function throughput(depth: number, targetMs = 5): number {
  const { ledger, parentId } = tree(depth);
  let pairs = 0;
  const start = process.hrtime.bigint();
  let elapsedNs = 0;
  do {
    for (let index = 0; index < 16; index++) pair(ledger, parentId);
    pairs += 16;
    elapsedNs = Number(process.hrtime.bigint() - start);
  } while (elapsedNs < targetMs * 1e6);
  return pairs / (elapsedNs / 1e9);
}

function sampleInto(depth: number, samples: number[]): void {
  let current = tree(depth);
  for (let index = 0; index < SAMPLES_PER_ROUND; index++) {
    if (index % 2_000 === 0) current = tree(depth);
    const start = process.hrtime.bigint();
    pair(current.ledger, current.parentId);
    samples.push(Number(process.hrtime.bigint() - start));
  }
}

/** Events per second of foldBudget over a run of 2,000 calls under the 3-level tree. */
function foldRate(): number {
  const { ledger, parentId } = tree(3);
  const drafts: { type: string; data: object }[] = [{ type: "budget.opened", data: ledger.opened() }];
  for (const view of [ledger.reservation("sub")!, ledger.reservation("verify")!]) {
    drafts.push({
      type: "budget.reserved",
      data: { reservationId: view.reservationId, parentId: view.parentId, amounts: view.amounts, attribution: view.attribution },
    });
  }
  for (let index = 0; index < 2_000; index++) {
    const reservationId = `f${index}`;
    const request = { reservationId, parentId, amounts: RESERVE, attribution: CALL };
    ledger.reserve(request);
    drafts.push({ type: "budget.reserved", data: request });
    drafts.push({ type: "budget.settled", data: ledger.settle(reservationId, ACTUAL) });
  }
  const events = drafts.map(
    (draft, seq) =>
      ({
        schemaVersion: 1,
        tenantId: "t",
        runId: "run-1",
        seq,
        at: 0,
        causationId: null,
        prevHash: GENESIS_HASH,
        hash: GENESIS_HASH,
        ...draft,
      }) as unknown as YokeEvent,
  );
  const rates: number[] = [];
  for (let index = 0; index < 7; index++) {
    const start = process.hrtime.bigint();
    sink += foldBudget(events)!.openReservations().length;
    rates.push(events.length / (Number(process.hrtime.bigint() - start) / 1e9));
  }
  return median(rates);
}

function timerNs(): number {
  const samples: number[] = [];
  for (let index = 0; index < 20_000; index++) {
    const start = process.hrtime.bigint();
    samples.push(Number(process.hrtime.bigint() - start));
  }
  return median(samples);
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

const state = DEPTHS.map(() => ({ throughputs: [] as number[], samples: [] as number[] }));
for (const depth of DEPTHS) throughput(depth, 200); // warm-up
for (let round = 0; round < rounds; round++) {
  for (const [index, depth] of DEPTHS.entries()) {
    for (let window = 0; window < 10; window++) state[index]!.throughputs.push(throughput(depth));
    sampleInto(depth, state[index]!.samples);
  }
}
const rows = DEPTHS.map((depth, index) => {
  const { throughputs, samples } = state[index]!;
  return { depth, pairsPerSecond: median(throughputs), p50Us: percentile(samples, 50) / 1_000, p99Us: percentile(samples, 99) / 1_000 };
});
const [shallow, deep] = rows as [(typeof rows)[0], (typeof rows)[0]];
console.log(
  JSON.stringify({
    rounds,
    timerNs: timerNs(),
    rows,
    ratio: { throughput: deep.pairsPerSecond / shallow.pairsPerSecond, p50: deep.p50Us / shallow.p50Us, p99: deep.p99Us / shallow.p99Us },
    foldEventsPerSecond: foldRate(),
    sink: sink > 0,
  }),
);
