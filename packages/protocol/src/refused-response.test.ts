import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { GENESIS_HASH } from "./events.js";
import { STOP_REASONS, type AssistantPart, type ModelResponse, type StopReason } from "./model.js";
import { isRefusedResponse, withholdRefusedCalls } from "./refused-response.js";
import { reduceRun } from "./run-state.js";
import { eventsOf } from "./__fixtures__/events-of.js";

const started = {
  type: "run.started",
  data: { sessionId: "session_1", task: "t", tools: [], limits: { maxTurns: 3 }, release: { runtime: "test", eventSchemaVersion: 1 } },
};
const turn = [
  { type: "turn.started", data: { turnId: "turn_1", index: 1 } },
  { type: "model.requested", data: { turnId: "turn_1", requestHash: GENESIS_HASH, messageCount: 1 } },
];
const response = (stopReason: StopReason, content: AssistantPart[]): ModelResponse => ({
  provider: "third-party",
  model: "m-1",
  stopReason,
  usage: { inputTokens: 0, outputTokens: 0 },
  content,
});
const call = (toolCallId: string, rawArguments: string): AssistantPart => ({ type: "tool-call", toolCallId, toolName: "get_weather", rawArguments });

describe("a refused response in the fold", () => {
  // What a third-party adapter that ignores the rule journals: executable parts under a refusal.
  for (const stopReason of ["refusal", "content_filter"] as const) {
    it(`leaves no tool call pending when the stop reason is ${stopReason}`, () => {
      const refused = response(stopReason, [call("call_1", '{"city":"Paris"}'), call("call_2", '{"city":"To')]);
      const state = reduceRun(eventsOf([started, ...turn, { type: "model.responded", data: { turnId: "turn_1", response: refused, latencyMs: 0 } }]));
      expect(state.phase).toBe("responded");
      expect(state.pendingToolCalls).toEqual([]);
    });
  }

  it("leaves no tool call pending when the response carries a refusal part", () => {
    const refused = response("tool_use", [{ type: "refusal", text: "I won't." }, call("call_1", "{}")]);
    const state = reduceRun(eventsOf([started, ...turn, { type: "model.responded", data: { turnId: "turn_1", response: refused, latencyMs: 0 } }]));
    expect(state.phase).toBe("responded");
    expect(state.pendingToolCalls).toEqual([]);
  });

  it("refuses a tool event for a call of a refused response", () => {
    const refused = response("refusal", [call("call_1", "{}")]);
    const drafts = [
      started,
      ...turn,
      { type: "model.responded", data: { turnId: "turn_1", response: refused, latencyMs: 0 } },
      {
        type: "tool.started",
        data: { turnId: "turn_1", toolCallId: "call_1", toolName: "get_weather", actionId: "action_1", attemptId: "attempt_1", attempt: 1, input: {} },
      },
    ];
    expect(() => reduceRun(eventsOf(drafts))).toThrow("tool.started in phase responded");
  });
});

const part = fc.oneof(
  fc.record({ type: fc.constant("text" as const), text: fc.string() }),
  fc.record({ type: fc.constant("refusal" as const), text: fc.string() }),
  fc.record({ type: fc.constant("tool-call" as const), toolCallId: fc.string({ minLength: 1 }), toolName: fc.string(), rawArguments: fc.string() }),
  fc.record({ type: fc.constant("reasoning" as const), text: fc.string() }),
);
const anyResponse = fc
  .record({ stopReason: fc.constantFrom(...STOP_REASONS), content: fc.array(part, { maxLength: 6 }) })
  .map(({ stopReason, content }) => response(stopReason, content as AssistantPart[]));

describe("withholdRefusedCalls", () => {
  it("leaves a refused response no executable part, keeps every call as withheld in place, and changes nothing else", () => {
    fc.assert(
      fc.property(anyResponse, (original) => {
        const result = withholdRefusedCalls(original);
        if (!isRefusedResponse(original)) {
          expect(result).toBe(original);
          return;
        }
        expect(result.content.some((item) => item.type === "tool-call")).toBe(false);
        expect(result.content).toHaveLength(original.content.length);
        original.content.forEach((item, index) => {
          const kept = result.content[index]!;
          if (item.type !== "tool-call") expect(kept).toBe(item);
          else expect(kept).toEqual({ type: "tool-call-withheld", toolCallId: item.toolCallId, toolName: item.toolName, rawArguments: item.rawArguments });
        });
        expect({ ...result, content: [] }).toEqual({ ...original, content: [] });
        // Idempotent: the runtime applies it again to what an adapter already mapped.
        expect(withholdRefusedCalls(result)).toEqual(result);
      }),
    );
  });
});
