// What the batch transaction and the batch executor share: the leased attempt handed to a
// handler, what the attempt came to, and whether a failed one is retried.
import type { ActionId, AttemptId, JsonValue, AnyToolDeclaration, ToolResultEnvelope } from "@yoke/protocol";

/** Attempts an action may take when its tool does not say. */
export const DEFAULT_MAX_ATTEMPTS = 3;

/** One leased attempt, already durable as executing (`action.admitted` or `action.executing`). */
export interface DispatchItem {
  readonly tool: AnyToolDeclaration;
  /** The input as the tool's schema parsed it. */
  readonly input: unknown;
  readonly actionId: ActionId;
  readonly attemptId: AttemptId;
  readonly attempt: number;
  /** Clock time after which the attempt must not be dispatched, and is abandoned if running. */
  readonly deadlineAt: number;
}

/** What one attempt came to. */
export type AttemptOutcome =
  | { readonly kind: "committed"; readonly result: ToolResultEnvelope; readonly receipt: JsonValue | undefined }
  | { readonly kind: "failed"; readonly result: ToolResultEnvelope; readonly retryable: boolean; readonly dispatched: boolean }
  | { readonly kind: "uncertain"; readonly reason: string }
  /**
   * Not dispatched, and still leased: an earlier call it conflicts with has not settled for
   * good (its attempt failed and will be retried, or its outcome is uncertain). Dispatch the
   * same item again in the round that settles that call; there is nothing to journal for it.
   */
  | { readonly kind: "deferred" };

/** Whether a failed attempt is followed by another one: retryable, and attempts are left. */
export function retriesAfter(item: DispatchItem, outcome: Extract<AttemptOutcome, { kind: "failed" }>): boolean {
  return outcome.retryable && item.attempt < maxAttempts(item.tool);
}

export function maxAttempts(tool: AnyToolDeclaration): number {
  return tool.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
}
