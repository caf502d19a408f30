import type { Clock } from "./clock.js";
import type { YokeEvent } from "./events.js";
import type { JsonValue } from "./json-value.js";
import type { VerifierVerdict } from "./verifier-verdict.js";
import type { ModelResponse } from "./model.js";
import type { RunState } from "./run-state-types.js";
import type { BudgetAmounts } from "./budget.js";

/** What a verifier is given: the run as journaled so far (state and events), the answer it gates, and where to work. */
export interface VerifierInput {
  readonly tenantId: string;
  readonly runId: string;
  readonly state: RunState;
  /** The run's events, in order: what evidence (artifacts, action receipts) must be found in. */
  readonly events: readonly YokeEvent[];
  /** The final answer being gated: its text, the parsed structured output when the run asked for one, and the response. */
  readonly answer: { readonly text: string; readonly output?: JsonValue; readonly response: ModelResponse };
  /** A directory a command verifier runs in (the run's workspace), when the harness has one. */
  readonly workspace?: string;
  readonly signal: AbortSignal;
  readonly clock: Clock;
}

/**
 * A verifier, version 1: data (id, kind, whether it may run again on replay, what it may
 * cost) plus code (`verify`). `replaySafe`: running it again changes nothing outside (a
 * read-only check); a verifier that is not is never re-run on replay or resume: its
 * journaled verdict stands, or, when none was journaled, the run escalates. `reserve`: the
 * worst case the runtime reserves from the run's budget before it runs (wall time, tool ops).
 */
export interface VerifierV1 {
  readonly specificationVersion: "v1";
  readonly id: string;
  readonly kind: string;
  readonly replaySafe: boolean;
  readonly description?: string;
  readonly reserve?: BudgetAmounts;
  verify(input: VerifierInput): Promise<VerifierVerdict>;
}
