import type { z } from "zod/v4";
import { YokeError } from "./errors.js";
import { unknownBudgetDimensions } from "./budget-dimensions.js";
import type { JsonValue } from "./json-value.js";
import { EVENT_SCHEMA_VERSION, type JournalEvent } from "./event-envelope.js";
import { COMPLETION_CHECK_EVENTS, RUN_CLOSING_EVENTS, RUN_OPENING_EVENTS, VERIFIER_EVENTS } from "./events-run.js";
import { MODEL_EVENTS } from "./events-model.js";
import { ACTION_EVENTS, TOOL_REGISTRY_EVENTS } from "./events-actions.js";
import { BUDGET_EVENTS } from "./events-budget.js";
import { RELEASE_EVENTS } from "./events-release.js";

export {
  ChainHashSchema,
  EVENT_SCHEMA_VERSION,
  EVENT_TYPE_PATTERN,
  EventDraftSchema,
  GENESIS_HASH,
  HashSchema,
  JOURNAL_KEY_ID_PATTERN,
  JournalEventSchema,
  type EventDraft,
  type JournalEvent,
} from "./event-envelope.js";
export { OutcomeSchema, RunForkSchema, SESSION_STREAM_SUFFIX, type Outcome, type OutcomeStatus, type RunFork } from "./events-run.js";
export { SideEffectClassSchema } from "./events-actions.js";

/** Data of each canonical event type, keyed by type (one family per module, in the order a run writes them). */
export const EVENT_DATA_SCHEMAS = {
  ...RUN_OPENING_EVENTS,
  ...TOOL_REGISTRY_EVENTS,
  ...MODEL_EVENTS,
  ...ACTION_EVENTS,
  ...COMPLETION_CHECK_EVENTS,
  ...BUDGET_EVENTS,
  ...VERIFIER_EVENTS,
  ...RELEASE_EVENTS,
  ...RUN_CLOSING_EVENTS,
} as const;

export type YokeEventType = keyof typeof EVENT_DATA_SCHEMAS;
export const YOKE_EVENT_TYPES = Object.keys(EVENT_DATA_SCHEMAS) as YokeEventType[];
/** The data of a stored event of type `T`, as the journal gives it back (see `StoredJson`). */
export type EventData<T extends YokeEventType> = StoredJson<z.infer<(typeof EVENT_DATA_SCHEMAS)[T]>>;
/**
 * The data a draft of type `T` is typed with: zod's output type, whose optional members may be
 * `undefined` in the type (values built from parsed models, envelopes and outcomes). The
 * journal stores none: leave such a member out rather than setting it to `undefined`.
 */
type DraftData<T extends YokeEventType> = z.infer<(typeof EVENT_DATA_SCHEMAS)[T]>;

/**
 * `T` as the journal gives it back: parsed JSON, where an optional member is absent, never
 * `undefined`. zod types an optional member `T | undefined`, which a JSON object cannot
 * hold; without this a typed event would not be a `JournalEvent` under
 * `exactOptionalPropertyTypes`. Types that are JSON already are left as they are.
 */
export type StoredJson<T> = T extends JsonValue
  ? T
  : T extends readonly unknown[]
    ? { [I in keyof T]: StoredJson<T[I]> }
    : T extends object
      ? { [K in keyof T]: StoredJson<Exclude<T[K], undefined>> }
      : T;

/** A stored event whose type is one of Yoke's own, with typed data. */
export type YokeEvent = {
  [T in YokeEventType]: Omit<JournalEvent, "type" | "data"> & { type: T; data: EventData<T> };
}[YokeEventType];

/**
 * The member of `YokeEvent` with type `T`.
 *
 * @example
 * ```ts
 * function latency(event: YokeEventOf<"model.responded">): number {
 *   return event.data.latencyMs;
 * }
 * ```
 */
export type YokeEventOf<T extends YokeEventType> = Extract<YokeEvent, { type: T }>;

/**
 * Narrows a typed event (from `harness.events()`, `onEvent`, `readYokeEvents` or
 * `parseYokeEvent`) to one type, or one of several, so its `data` is typed without a cast.
 *
 * @example
 * ```ts
 * for await (const event of harness.events(runId)) {
 *   if (isEventOfType(event, "model.failed")) console.log(event.data.code, event.data.requestId);
 *   if (isEventOfType(event, ["run.failed", "run.completed"])) console.log(event.type);
 * }
 * ```
 */
export function isEventOfType<T extends YokeEventType>(event: YokeEvent, type: T | readonly T[]): event is YokeEventOf<T> {
  return typeof type === "string" ? event.type === type : (type as readonly string[]).includes(event.type);
}

/** A draft of one of Yoke's own events, typed by its `type`: `JournalV1.append` takes it as it is. */
export type YokeEventDraft = {
  [T in YokeEventType]: { type: T; at: number; causationId?: string | null; data: DraftData<T> };
}[YokeEventType];

export function isYokeEventType(type: string): type is YokeEventType {
  return Object.hasOwn(EVENT_DATA_SCHEMAS, type);
}

/**
 * Validates a stored event as one of Yoke's canonical events. Throws EVENT_INVALID naming
 * the sequence number; JOURNAL_SCHEMA_UNSUPPORTED for a newer schema version.
 */
export function parseYokeEvent(event: JournalEvent): YokeEvent {
  if (event.schemaVersion > EVENT_SCHEMA_VERSION) {
    throw new YokeError("JOURNAL_SCHEMA_UNSUPPORTED", `event ${event.seq} has schema version ${event.schemaVersion}`, {
      details: { seq: event.seq, schemaVersion: event.schemaVersion, supported: EVENT_SCHEMA_VERSION },
    });
  }
  if (!isYokeEventType(event.type)) {
    throw new YokeError("EVENT_INVALID", `event ${event.seq} has unknown type ${event.type}`, {
      details: { seq: event.seq, type: event.type },
    });
  }
  const parsed = EVENT_DATA_SCHEMAS[event.type].safeParse(event.data);
  if (!parsed.success) {
    // A budget dimension this reader does not know is refused, never dropped: a dropped charge or limit would let a budget be escaped.
    const unknownDimensions = unknownBudgetDimensions(parsed.error.issues);
    throw new YokeError("EVENT_INVALID", `event ${event.seq} (${event.type}) has invalid data: ${parsed.error.message}`, {
      details: unknownDimensions.length === 0 ? { seq: event.seq, type: event.type } : { seq: event.seq, type: event.type, unknownDimensions },
      cause: parsed.error,
    });
  }
  return { ...event, data: parsed.data } as YokeEvent;
}
