import { EVENT_DATA_SCHEMAS, YokeError, reduceRun } from "@yoke/protocol";
import type { SeedRun } from "./simulate.js";

const broken = (invariant: string, message: string, details: Record<string, unknown> = {}) =>
  new YokeError("TESTKIT_EXPECTATION_FAILED", message, { details: { invariant, ...details } });

/** No effect is applied twice under one idempotency key (the world's effect ledger). */
export function noDuplicatedEffects(run: SeedRun): void {
  const counts = new Map<string, number>();
  for (const entry of run.world.ledger.entries()) if (entry.op === "apply") counts.set(entry.key, (counts.get(entry.key) ?? 0) + 1);
  const twice = [...counts].filter(([, count]) => count > 1).map(([key]) => key);
  if (twice.length > 0) throw broken("noDuplicatedEffects", `effects applied more than once: ${twice.join(", ")}`, { keys: twice });
}

/** Every stream of the world's tenant verifies end to end (its hash chain). */
export async function chainVerifies(run: SeedRun): Promise<void> {
  for (const runId of run.streams.keys()) {
    const verified = await run.driven.journal.verify({ tenantId: run.world.tenantId, runId });
    if (!verified.ok) throw broken("chainVerifies", `the chain of ${runId} does not verify`, { runId, verified });
  }
}

/** The world's run folds without error, ended, and its outcome is one of the closed set (`OutcomeSchema`). */
export function outcomeInClosedSet(run: SeedRun): void {
  if (run.events.length === 0) throw broken("outcomeInClosedSet", `run ${run.world.runId} journaled nothing`);
  const state = reduceRun([...run.events]);
  const completed = run.events.filter((event) => event.type === "run.completed");
  if (completed.length !== 1 || state.outcome === undefined) {
    throw broken("outcomeInClosedSet", `run ${run.world.runId} did not end once (${completed.length} run.completed, phase ${state.phase})`, {
      phase: state.phase,
    });
  }
  // run.completed's schema holds the closed set of outcomes.
  const parsed = EVENT_DATA_SCHEMAS["run.completed"].safeParse(completed[0]!.data);
  if (!parsed.success) throw broken("outcomeInClosedSet", `outcome ${JSON.stringify(state.outcome)} is not in the closed set`, { seq: completed[0]!.seq });
}

/** The invariants every world has, whatever drives it. */
export const WORLD_INVARIANTS = [noDuplicatedEffects, chainVerifies, outcomeInClosedSet] as const;
