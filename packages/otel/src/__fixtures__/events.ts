// Hand-built journals for the edge cases a scripted run rarely reaches (uncertain effects,
// reconciliation, retries of an attempt, child runs, a run that waits). The real-run tests live
// in examples/otel-export.
import { EVENT_SCHEMA_VERSION, GENESIS_HASH, type JournalEvent, type ToolResultEnvelope, type YokeEventDraft } from "@yoke/protocol";

/** Stored events of one run from drafts: seq from 0, a placeholder hash chain. */
export function journalOf(runId: string, drafts: readonly YokeEventDraft[], tenantId = "tenant_test"): JournalEvent[] {
  return drafts.map((draft, seq) => ({
    schemaVersion: EVENT_SCHEMA_VERSION,
    tenantId,
    runId,
    seq,
    type: draft.type,
    at: draft.at,
    causationId: draft.causationId ?? null,
    data: draft.data as JournalEvent["data"],
    prevHash: GENESIS_HASH,
    hash: GENESIS_HASH,
  }));
}

export function started(at: number, extra: Partial<Extract<YokeEventDraft, { type: "run.started" }>["data"]> = {}): YokeEventDraft {
  return {
    type: "run.started",
    at,
    data: { sessionId: "session_1", task: "a task", tools: [], limits: { maxTurns: 4 }, release: { runtime: "test", eventSchemaVersion: 1 }, ...extra },
  };
}

export function turn(at: number, turnId: string, index: number): YokeEventDraft {
  return { type: "turn.started", at, data: { turnId, index } };
}

export function result(status: "ok" | "error", text: string, code?: string): ToolResultEnvelope {
  return {
    status,
    content: [{ type: "text", text }],
    ...(code === undefined ? {} : { error: { code, message: text } }),
    timing: { startedAt: 0, endedAt: 0, durationMs: 0 },
  };
}

export function toolCallResponse(at: number, turnId: string, toolCallId: string, toolName: string): YokeEventDraft[] {
  return [
    { type: "model.requested", at, data: { turnId, requestHash: "a".repeat(64), messageCount: 2 } },
    {
      type: "model.responded",
      at: at + 10,
      data: {
        turnId,
        latencyMs: 10,
        response: {
          provider: "anthropic",
          model: "claude-test",
          id: `msg_${turnId}`,
          content: [{ type: "tool-call", toolCallId, toolName, arguments: {}, rawArguments: "{}" }],
          stopReason: "tool_use",
          rawStopReason: "tool_use",
          usage: { inputTokens: 10, outputTokens: 5 },
        },
      },
    },
  ];
}

export function proposed(
  at: number,
  turnId: string,
  actionId: string,
  toolName: string,
  sideEffect: "none" | "idempotent" | "reversible" | "irreversible",
): YokeEventDraft[] {
  return [
    { type: "action.proposed", at, data: { turnId, toolCallId: `call_${actionId}`, toolName, actionId, input: {}, sideEffect } },
    { type: "action.validated", at, data: { actionId } },
    { type: "action.authorized", at, data: { actionId, decision: "allow", rule: "default-allow" } },
  ];
}
