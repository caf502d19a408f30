import { EVENT_SCHEMA_VERSION, type EventData, type EventDraft, type JsonValue } from "@yoke/protocol";
import { EVENT_TYPE_PATTERN } from "@yoke/protocol/journal-utils";
import fc from "fast-check";
import type { RunStartedDraft } from "./event-drafts.js";

// `__proto__` is dropped by schema parsing, and -0 becomes 0 in JSON: values that cannot
// round-trip through a journal are left out.
const jsonKey = fc.string({ unit: "binary", maxLength: 8 }).filter((key) => key !== "__proto__");
const jsonNumber = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((value) => (Object.is(value, -0) ? 0 : value)),
);
const jsonLeaf: fc.Arbitrary<JsonValue> = fc.oneof(fc.constant(null), fc.boolean(), jsonNumber, fc.string({ unit: "binary", maxLength: 16 }));

/**
 * JSON values that survive canonical JSON and a store's round trip exactly: finite numbers
 * (no -0), any string (lone surrogates included), nested arrays and plain objects.
 */
export function jsonValueArbitrary(): fc.Arbitrary<JsonValue> {
  const { value } = fc.letrec<{ value: JsonValue; array: JsonValue[]; object: Record<string, JsonValue> }>((tie) => ({
    value: fc.oneof({ depthSize: "small", withCrossShrink: true }, jsonLeaf, tie("array"), tie("object")),
    array: fc.array(tie("value"), { maxLength: 4 }),
    object: fc.dictionary(jsonKey, tie("value"), { maxKeys: 4, noNullPrototype: true }),
  }));
  return value;
}

/** An event's `data`: a JSON object record. */
export function eventDataArbitrary(): fc.Arbitrary<Record<string, JsonValue>> {
  return fc.dictionary(jsonKey, jsonValueArbitrary(), { maxKeys: 5, noNullPrototype: true });
}

// Well-formed Unicode: every store must keep these ids exactly.
const text = fc.string({ unit: "grapheme", maxLength: 12 });
const at = fc.integer({ min: 0, max: 2 ** 47 });
const causationId = fc.option(text, { nil: undefined }).chain((value) => (value === undefined ? fc.constantFrom(undefined, null) : fc.constant(value)));

const toolSpec: fc.Arbitrary<EventData<"run.started">["tools"][number]> = fc.record({
  name: fc.stringMatching(/^[a-zA-Z0-9_-]{1,64}$/),
  description: text,
  inputSchema: eventDataArbitrary(),
});

/** Valid `run.started` drafts (their data passes `EVENT_DATA_SCHEMAS["run.started"]`). */
export function runStartedDraftArbitrary(): fc.Arbitrary<RunStartedDraft> {
  return fc
    .record({
      at,
      causationId,
      data: fc.record(
        {
          sessionId: text,
          task: text,
          systemPrompt: text,
          tools: fc.array(toolSpec, { maxLength: 2 }),
          limits: fc.record({ maxTurns: fc.integer({ min: 1, max: 1000 }) }),
          release: fc.record({ runtime: text, eventSchemaVersion: fc.constant(EVENT_SCHEMA_VERSION) }),
        },
        { requiredKeys: ["sessionId", "task", "tools", "limits", "release"] },
      ),
    })
    .map(({ causationId: cause, ...rest }) => ({
      type: "run.started" as const,
      ...rest,
      ...(cause === undefined ? {} : { causationId: cause }),
    }));
}

/** Drafts of any valid type except `run.started`, with arbitrary JSON data. */
export function eventDraftArbitrary(): fc.Arbitrary<EventDraft> {
  const type = fc.oneof(
    fc.constantFrom("turn.started", "model.responded", "tool.completed", "test.noted"),
    fc.stringMatching(EVENT_TYPE_PATTERN).filter((value) => value !== "run.started"),
  );
  return fc
    .record({ type, at, causationId, data: eventDataArbitrary() })
    .map(({ causationId: cause, ...rest }) => ({ ...rest, ...(cause === undefined ? {} : { causationId: cause }) }));
}

/**
 * A batch of drafts for one append: it starts with `run.started` when `startsRun`, and
 * never contains `run.started` elsewhere.
 */
export function eventBatchArbitrary(options: { readonly startsRun: boolean; readonly maxLength?: number }): fc.Arbitrary<EventDraft[]> {
  const maxLength = options.maxLength ?? 4;
  if (!options.startsRun) return fc.array(eventDraftArbitrary(), { minLength: 1, maxLength });
  return fc.tuple(runStartedDraftArbitrary(), fc.array(eventDraftArbitrary(), { maxLength: maxLength - 1 })).map(([first, rest]) => [first, ...rest]);
}
