import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CallInputReader, withCallInput, withInputFromCall } from "./call-input.js";
import { readYokeEvents } from "./read-events.js";
import { YokeError } from "./errors.js";
import { GENESIS_HASH, parseYokeEvent, type YokeEventDraft } from "./events.js";
import type { JsonValue } from "./json-value.js";
import type { ModelResponse, ToolResultEnvelope } from "./model.js";
import { RunStateAccumulator, reduceRun } from "./run-state.js";
import { eventsOf } from "./__fixtures__/events-of.js";

const result: ToolResultEnvelope = { status: "ok", content: [{ type: "text", text: "done" }], timing: { startedAt: 0, endedAt: 0, durationMs: 0 } };
const response = (rawArguments: string, fromRaw: boolean): ModelResponse => ({
  provider: "scripted",
  model: "scripted-1",
  stopReason: "tool_use",
  usage: { inputTokens: 0, outputTokens: 0 },
  content: [{ type: "tool-call", toolCallId: "call_1", toolName: "t", rawArguments, ...(fromRaw ? {} : { arguments: JSON.parse(rawArguments) as JsonValue }) }],
});
const head = (rawArguments: string, fromRaw: boolean) => [
  { type: "run.started", data: { sessionId: "s", task: "t", tools: [], limits: { maxTurns: 3 }, release: { runtime: "test", eventSchemaVersion: 1 } } },
  { type: "turn.started", data: { turnId: "turn_1", index: 1 } },
  { type: "model.requested", data: { turnId: "turn_1", requestHash: GENESIS_HASH, messageCount: 1 } },
  {
    type: "model.responded",
    data: { turnId: "turn_1", latencyMs: 0, response: response(rawArguments, fromRaw), ...(fromRaw ? { argumentsFromRaw: true } : {}) },
  },
];
const admitted = (input: { input: JsonValue } | { inputFromCall: true }, toolCallId = "call_1") => ({
  type: "action.admitted",
  data: {
    turnId: "turn_1",
    toolCallId,
    toolName: "t",
    actionId: "action_1",
    ...input,
    sideEffect: "none",
    decision: "allow",
    rule: "default",
    attemptId: "action_1_1",
    attempt: 1,
    deadlineAt: 0,
  },
});
const committed = { type: "action.committed", data: { actionId: "action_1", attemptId: "action_1_1", result } };
const proposed = (input: { input: JsonValue } | { inputFromCall: true }) => ({
  type: "action.proposed",
  data: { turnId: "turn_1", toolCallId: "call_1", toolName: "t", actionId: "action_1", ...input, sideEffect: "none" },
});

/** Issue 33, item 4: a call's arguments are journaled once, in `model.responded`. */
describe("an action's input as a reference to its call (inputFromCall)", () => {
  it("folds to the same state, and the same events for every reader, as the input in full (any JSON arguments)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.boolean(), (value, fromRaw) => {
        // The journal holds JSON: what the model sent is text, the input its parse.
        const rawArguments = JSON.stringify(value);
        const input = JSON.parse(rawArguments) as JsonValue;
        for (const tail of [[admitted({ input })], [admitted({ input }), committed], [proposed({ input })]]) {
          const full = eventsOf([...head(rawArguments, fromRaw), ...tail]);
          const referenced = eventsOf([
            ...head(rawArguments, fromRaw),
            ...tail.map((event) => (event.type === "action.committed" ? event : { ...event, data: { ...event.data, input: undefined, inputFromCall: true } })),
          ]).map((event) => ({ ...event, data: JSON.parse(JSON.stringify(event.data)) as typeof event.data }));
          expect(reduceRun(referenced)).toEqual(reduceRun(full));
          const read = (events: typeof full) => {
            const accumulator = new RunStateAccumulator();
            return events.map((event) => accumulator.apply(event));
          };
          expect(read(referenced)).toEqual(read(full));
          expect(reduceRun(referenced).actions[0]?.input).toEqual(input);
        }
      }),
      { numRuns: 200 },
    );
  });

  it("the writer references exactly an input with the call's canonical JSON (a journal keeps no key order); defaults and transforms stay in full", () => {
    const accumulator = new RunStateAccumulator();
    for (const event of eventsOf(head('{"b":1,"a":[2]}', true))) accumulator.apply(event);
    const state = accumulator.peek();
    const draft = (input: JsonValue) => ({ type: "action.admitted", at: 0, data: admitted({ input }).data }) as YokeEventDraft;
    expect(withInputFromCall(state, draft({ b: 1, a: [2] })).data).toEqual({ ...admitted({ inputFromCall: true }).data });
    expect("input" in withInputFromCall(state, draft({ b: 1, a: [2] })).data).toBe(false);
    expect(withInputFromCall(state, draft({ a: [2], b: 1 })).data).toEqual({ ...admitted({ inputFromCall: true }).data });
    for (const differs of [{ b: 1, a: [2], n: 7 }, { b: "1", a: [2] }, { b: 1, a: [2, null] }, { b: 1 }]) {
      const kept = draft(differs);
      expect(withInputFromCall(state, kept)).toBe(kept);
    }
    const otherCall = { type: "action.admitted", at: 0, data: admitted({ input: { b: 1, a: [2] } }, "call_9").data } as YokeEventDraft;
    expect(withInputFromCall(state, otherCall)).toBe(otherCall);
  });

  it("refuses (EVENT_INVALID) a reference to a call the response does not hold, one without arguments, both forms, or neither", () => {
    const refusals = [
      [...head('{"a":1}', false), admitted({ inputFromCall: true }, "call_forged")],
      [...head("not json", true), admitted({ inputFromCall: true })],
      [...head('{"a":1}', false), { ...admitted({ input: { a: 1 } }), data: { ...admitted({ input: { a: 1 } }).data, inputFromCall: true } }],
      [...head('{"a":1}', false), { ...admitted({ input: { a: 1 } }), data: { ...admitted({ input: { a: 1 } }).data, input: undefined } }],
    ];
    for (const drafts of refusals) {
      const events = eventsOf(drafts).map((event) => ({ ...event, data: JSON.parse(JSON.stringify(event.data)) as typeof event.data }));
      let caught: unknown;
      try {
        reduceRun(events);
      } catch (error) {
        caught = error;
      }
      expect(YokeError.hasCode(caught, "EVENT_INVALID")).toBe(true);
      expect((caught as YokeError).message).toContain("event 4 (action.admitted)");
    }
    expect(() => withCallInput({ phase: "responded", pendingToolCalls: [] }, reduceRunEvent())).toThrow(/action.admitted in phase responded/);
  });
});

function reduceRunEvent() {
  const events = eventsOf([...head('{"a":1}', false), admitted({ inputFromCall: true })]);
  return parseYokeEvent(events[4]!);
}

describe("CallInputReader and readYokeEvents", () => {
  it("give an action's input back without folding, as the fold does; leave a reference they cannot resolve as it is", async () => {
    const events = eventsOf([...head('{"a":[1]}', true), admitted({ inputFromCall: true }), committed]);
    const reader = new CallInputReader();
    const read = events.map((event) => reader.read(parseYokeEvent(event)));
    const accumulator = new RunStateAccumulator();
    expect(read).toEqual(events.map((event) => accumulator.apply(event)));
    expect(read[4]?.data).toEqual(admitted({ input: { a: [1] } }).data);
    const journal = {
      read: async function* () {
        yield* events;
      },
    };
    const streamed = [];
    for await (const event of readYokeEvents(journal as never, { tenantId: "tenant_a", runId: "run_1" })) streamed.push(event);
    expect(streamed).toEqual(read);
    // A page that starts after the response: the marker stays.
    const page = new CallInputReader().read(parseYokeEvent(events[4]!));
    expect(page.data).toEqual(admitted({ inputFromCall: true }).data);
  });
});
