// Verifier inputs over real, schema-checked events: every draft goes through protocol's
// parseYokeEvent, so a fixture that drifts from the event schemas fails loudly.
import {
  EVENT_SCHEMA_VERSION,
  GENESIS_HASH,
  type JournalEvent,
  type JsonValue,
  type ModelResponse,
  parseYokeEvent,
  reduceRun,
  steppingClock,
  type VerifierInput,
  type YokeEvent,
} from "@yoke/protocol";

export type Draft = { type: string; data: Record<string, unknown>; runId?: string };

/** Stored events of `run_1` (tenant_a) unless a draft names its run; seq from 0; placeholder hashes. */
export function eventsOf(drafts: readonly Draft[]): YokeEvent[] {
  return drafts.map((draft, seq) =>
    parseYokeEvent({
      schemaVersion: EVENT_SCHEMA_VERSION,
      tenantId: "tenant_a",
      runId: draft.runId ?? "run_1",
      seq,
      type: draft.type,
      at: 0,
      causationId: null,
      data: draft.data as JournalEvent["data"],
      prevHash: GENESIS_HASH,
      hash: GENESIS_HASH,
    }),
  );
}

export const runStarted: Draft = {
  type: "run.started",
  data: { sessionId: "session_1", task: "fix the build", tools: [], limits: { maxTurns: 5 }, release: { runtime: "test", eventSchemaVersion: 1 } },
};

export function endTurn(text: string): ModelResponse {
  return { provider: "scripted", model: "scripted-1", stopReason: "end_turn", usage: { inputTokens: 0, outputTokens: 0 }, content: [{ type: "text", text }] };
}

/**
 * A verifier input over `drafts` (run.started first when the drafts do not start with it).
 * `state` is the fold of the whole log with `fold: true` (the drafts must then be a run the
 * fold accepts), else of `run.started` alone: the evidence tests journal action events without
 * the model turns that proposed them, which the fold refuses, and the evidence verifier reads
 * the events, never the state.
 */
export function inputOf(
  options: { drafts?: readonly Draft[]; text?: string; output?: JsonValue; workspace?: string; signal?: AbortSignal; runId?: string; fold?: boolean } = {},
): VerifierInput {
  const drafts = options.drafts ?? [];
  const all = drafts[0]?.type === "run.started" ? drafts : [runStarted, ...drafts];
  const events = eventsOf(all);
  const text = options.text ?? "done";
  return {
    tenantId: "tenant_a",
    runId: options.runId ?? "run_1",
    state: reduceRun(options.fold === true ? events.filter((event) => event.runId === (options.runId ?? "run_1")) : events.slice(0, 1)),
    events,
    answer: { text, ...(options.output === undefined ? {} : { output: options.output }), response: endTurn(text) },
    ...(options.workspace === undefined ? {} : { workspace: options.workspace }),
    signal: options.signal ?? new AbortController().signal,
    clock: steppingClock(1_000, 0),
  };
}

export function abortedSignal(): AbortSignal {
  const controller = new AbortController();
  controller.abort(new Error("stop"));
  return controller.signal;
}
