import { EVENT_SCHEMA_VERSION, GENESIS_HASH, type JournalEvent } from "../events.js";
import type { ModelResponse } from "../model.js";

/** Stored events of run_1 (tenant_a) from type + data pairs, seq from 0, placeholder hashes. */
export function eventsOf(drafts: { type: string; data: Record<string, unknown> }[]): JournalEvent[] {
  return drafts.map((draft, seq) => ({
    schemaVersion: EVENT_SCHEMA_VERSION,
    tenantId: "tenant_a",
    runId: "run_1",
    seq,
    type: draft.type,
    at: 0,
    causationId: null,
    data: draft.data as JournalEvent["data"],
    prevHash: GENESIS_HASH,
    hash: GENESIS_HASH,
  }));
}

/** A scripted `tool_use` response calling each `[toolCallId, toolName]` with `{}`. */
export function toolUse(...calls: [toolCallId: string, toolName: string][]): ModelResponse {
  return {
    provider: "scripted",
    model: "scripted-1",
    stopReason: "tool_use",
    usage: { inputTokens: 0, outputTokens: 0 },
    content: calls.map(([toolCallId, toolName]) => ({ type: "tool-call", toolCallId, toolName, rawArguments: "{}", arguments: {} })),
  };
}
