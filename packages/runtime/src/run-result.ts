import type { ApprovalRecord, InferSchemaOutput, Outcome, RunState, SchemaLike } from "@yoke/protocol";
import type { HumanWaiting } from "./loop-control.js";

/**
 * What a run waits for when `start` or `resume` returns before an outcome: `approval`, the
 * approval requests of actions the policy parked (`require_approval`), none decided yet; or
 * `human` (see `HumanWaiting`): a refusal, a content filter or an escalation.
 */
export type RunWaiting = { readonly kind: "approval"; readonly approvals: readonly ApprovalRecord[] } | HumanWaiting;

/**
 * How a `start` or `resume` returns when the run waits for a person: no outcome yet
 * (`outcome` undefined, `waiting` set). Only a harness with a `policy` returns one; narrow on
 * `waiting` (or `outcome`). Decide each approval with `harness.approve` / `harness.deny`,
 * then `resume` the run.
 *
 * @example
 * ```ts
 * const result = await harness.start("Pay my rent");
 * if (result.waiting !== undefined) {
 *   for (const approval of result.waiting.approvals) await harness.deny(result.runId, approval.approvalId, { approver: "me", reason: "not today" });
 *   const done = await harness.resume(result.runId);
 * } else {
 *   result.outcome.status;
 * }
 * ```
 */
export interface WaitingRunResult {
  readonly runId: string;
  readonly outcome: undefined;
  readonly waiting: RunWaiting;
  /** The text parts of the model's last answer, joined ("" when it has not answered). */
  readonly text: string;
  readonly output: undefined;
  readonly state: RunState;
}

/**
 * How a `start` or `resume` ended: the outcome, the final answer's text and the final state.
 *
 * @example
 * ```ts
 * const result = await harness.start("What is 2 + 3?");
 * if (result.waiting) console.log("waiting for a person:", result.waiting.kind);
 * else if (result.outcome.status === "verified_success") console.log(result.text); // "2 + 3 = 5"
 * ```
 */
export interface RunResult<Output = unknown> {
  readonly runId: string;
  readonly outcome: Outcome;
  /** The text parts of the model's last answer, joined; never its refusal parts. "" when it has not answered. */
  readonly text: string;
  /**
   * With the harness's `output` schema: the final answer as that schema's validated value,
   * when the run ended `completed` or `verified_success`; undefined otherwise.
   */
  readonly output: Output | undefined;
  readonly state: RunState;
  /** Never set on a finished run: see `WaitingRunResult`. */
  readonly waiting?: undefined;
}

/** The type of `result.output` for a harness built with `output: Schema` (`undefined` without one). */
export type OutputOf<OutputSchema> = OutputSchema extends SchemaLike ? InferSchemaOutput<OutputSchema> : undefined;
