import { EVENT_SCHEMA_VERSION, type EventData, type EventDraft, type JsonValue } from "@yoke/protocol";

/** A `run.started` draft with its data typed. */
export type RunStartedDraft = EventDraft & { type: "run.started"; data: EventData<"run.started"> };

export interface RunStartedDraftOverrides {
  /** Default 0: tests use fixed times, never the wall clock. */
  readonly at?: number;
  readonly causationId?: string | null;
  /** Merged over the defaults (a small task, no tools, eight turns). */
  readonly data?: Partial<EventData<"run.started">>;
}

/**
 * A valid `run.started` draft (the event every run must begin with), ready for
 * `journal.append(scope, 0, [draft])`. Its data passes `EVENT_DATA_SCHEMAS["run.started"]`
 * and survives canonical JSON unchanged.
 *
 * @example
 * ```ts
 * await journal.append(scope, 0, [runStartedDraft({ data: { task: "fix the build" } })]);
 * ```
 */
export function runStartedDraft(overrides: RunStartedDraftOverrides = {}): RunStartedDraft {
  const data: EventData<"run.started"> = {
    sessionId: "session_test",
    task: "a test task",
    tools: [],
    limits: { maxTurns: 8 },
    release: { runtime: "testkit", eventSchemaVersion: EVENT_SCHEMA_VERSION },
    ...overrides.data,
  };
  return {
    type: "run.started",
    at: overrides.at ?? 0,
    ...(overrides.causationId === undefined ? {} : { causationId: overrides.causationId }),
    data,
  };
}

/**
 * A draft of any event type (a store keeps types it does not know), for tests that need
 * events after `run.started`.
 *
 * @example
 * ```ts
 * await journal.append(scope, 1, [eventDraft("test.noted", { index: 1 }, { at: 5 })]);
 * ```
 */
export function eventDraft(
  type: string,
  data: Record<string, JsonValue> = {},
  options: { readonly at?: number; readonly causationId?: string | null } = {},
): EventDraft {
  return {
    type,
    at: options.at ?? 0,
    ...(options.causationId === undefined ? {} : { causationId: options.causationId }),
    data,
  };
}
