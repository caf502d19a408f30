// Action event drafts as the runtime journals them (protocol's event schemas check each one in eventsOf).
import type { Draft } from "./inputs.js";

const timing = { startedAt: 0, endedAt: 1, durationMs: 1 };
export const okResult = (text: string, truncation?: Record<string, unknown>) => ({
  status: "ok",
  content: [{ type: "text", text }],
  timing,
  ...(truncation === undefined ? {} : { truncation }),
});
const errorResult = { status: "error", content: [{ type: "text", text: "failed" }], error: { code: "TOOL_FAILED", message: "failed" }, timing };

export const admitted = (actionId: string, toolName = "refund", runId?: string): Draft => ({
  type: "action.admitted",
  ...(runId === undefined ? {} : { runId }),
  data: {
    turnId: "turn_1",
    toolCallId: `call_${actionId}`,
    toolName,
    actionId,
    input: { order: "o-1" },
    sideEffect: "irreversible",
    decision: "allow",
    rule: "default",
    attemptId: `attempt_${actionId}`,
    attempt: 1,
    deadlineAt: 10_000,
  },
});
export const committed = (actionId: string, receipt?: unknown, result = okResult("refunded"), runId?: string): Draft => ({
  type: "action.committed",
  ...(runId === undefined ? {} : { runId }),
  data: { actionId, attemptId: `attempt_${actionId}`, result, ...(receipt === undefined ? {} : { receipt }) },
});
export const failed = (actionId: string): Draft => ({
  type: "action.failed",
  data: { actionId, attemptId: `attempt_${actionId}`, dispatched: true, retryable: false, retrying: false, result: errorResult },
});
export const uncertain = (actionId: string): Draft => ({
  type: "action.uncertain",
  data: { actionId, attemptId: `attempt_${actionId}`, reason: "timeout after dispatch" },
});
export const reconciled = (actionId: string, verdict: "applied" | "not_applied" | "unknown" | "retry_safe", receipt?: unknown): Draft => ({
  type: "action.reconciled",
  data: { actionId, verdict, ...(receipt === undefined ? {} : { receipt }) },
});
export const compensating = (actionId: string): Draft => ({ type: "action.compensating", data: { actionId, reason: "undo" } });
export const compensated = (actionId: string): Draft => ({ type: "action.compensated", data: { actionId } });
export const turnStarted: Draft = { type: "turn.started", data: { turnId: "turn_1", index: 1 } };
export const compiled = (artifactHashes: string[]): Draft => ({
  type: "context.compiled",
  data: {
    turnId: "turn_1",
    revision: 1,
    requestHash: "0".repeat(64),
    manifestDelta: {},
    artifacts: artifactHashes.map((hash) => ({ hash, text: "full text" })),
  },
});
