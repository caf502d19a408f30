import { reduceRun } from "@yoke/protocol";
import type { SeedRun } from "@yoke/testkit/sim";
import type { DrivenWorld } from "./drive.ts";

/** What the simulated worlds exercised, counted over the seeds a tally saw. */
export interface Coverage {
  seeds: number;
  outcomes: Record<string, number>;
  /** Worlds whose first harness crashed, and a second one finished the run. */
  crashesResumed: number;
  approvalsRequested: number;
  approvalsDenied: number;
  interruptsLanded: number;
  refusals: number;
  modelFailures: number;
  uncertainAttempts: number;
  reconciled: number;
  compensated: number;
  toolTimeouts: number;
  budgetsExhausted: number;
  /** Batches of 2 or more calls whose effects reached the ledger in another order than proposed. */
  reorderedBatches: number;
}

/** An invariant that never fails: it counts what each seed's run went through, into `coverage`. */
export function tally(coverage: Coverage) {
  return function countCoverage(run: SeedRun<DrivenWorld>): void {
    const count = (type: string) => run.events.filter((event) => event.type === type).length;
    coverage.seeds += 1;
    const outcome = reduceRun([...run.events]).outcome?.status ?? "none";
    coverage.outcomes[outcome] = (coverage.outcomes[outcome] ?? 0) + 1;
    if (run.driven.harnesses > 1) coverage.crashesResumed += 1;
    coverage.approvalsRequested += count("action.approval_requested");
    coverage.approvalsDenied += count("approval.denied");
    coverage.interruptsLanded += count("interrupt.landed");
    coverage.refusals += run.events.filter(
      (event) => event.type === "model.responded" && (event.data as { response: { stopReason: string } }).response.stopReason === "refusal",
    ).length;
    coverage.modelFailures += count("model.failed");
    coverage.uncertainAttempts += count("action.uncertain");
    coverage.reconciled += count("action.reconciled");
    coverage.compensated += count("action.compensated");
    coverage.toolTimeouts += run.events.filter((event) => JSON.stringify(event.data).includes("TOOL_TIMEOUT")).length;
    if (outcome === "budget_exhausted") coverage.budgetsExhausted += 1;
    const applied = run.world.ledger.entries().filter((entry) => entry.op === "apply");
    const order = (value: unknown) =>
      String(value)
        .match(/^call_(\d+)_(\d+)/)
        ?.slice(1)
        .map(Number) ?? [0, 0];
    for (let index = 1; index < applied.length; index++) {
      const [turn, call] = order(applied[index]!.value);
      const [previousTurn, previousCall] = order(applied[index - 1]!.value);
      if (turn === previousTurn && call! < previousCall!) coverage.reorderedBatches += 1;
    }
  };
}

export function emptyCoverage(): Coverage {
  return {
    seeds: 0,
    outcomes: {},
    crashesResumed: 0,
    approvalsRequested: 0,
    approvalsDenied: 0,
    interruptsLanded: 0,
    refusals: 0,
    modelFailures: 0,
    uncertainAttempts: 0,
    reconciled: 0,
    compensated: 0,
    toolTimeouts: 0,
    budgetsExhausted: 0,
    reorderedBatches: 0,
  };
}
