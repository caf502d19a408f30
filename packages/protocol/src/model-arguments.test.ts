import { describe, expect, it } from "vitest";
import { GENESIS_HASH } from "./events.js";
import type { ModelResponse } from "./model.js";
import { withParsedArguments } from "./model.js";
import { reduceRun } from "./run-state.js";
import { eventsOf } from "./__fixtures__/events-of.js";

const response = (content: ModelResponse["content"]): ModelResponse => ({
  provider: "scripted",
  model: "scripted-1",
  stopReason: "tool_use",
  usage: { inputTokens: 0, outputTokens: 0 },
  content,
});
const call = (toolCallId: string, rawArguments: string, extra: object = {}) => ({
  type: "tool-call" as const,
  toolCallId,
  toolName: "t",
  rawArguments,
  ...extra,
});

/** Issue 33, item 4: the argument text is journaled once. */
describe("withParsedArguments and model.responded's argumentsFromRaw", () => {
  it("gives back the parse of each call that has neither arguments nor an error; leaves the others as they are", () => {
    const given = response([
      call("c0", '{"a": 1}'),
      call("c1", "not json"),
      call("c2", "{}", { arguments: { kept: true } }),
      call("c3", "{}", { omitted: { bytes: 9, sha256: "0".repeat(64), limit: 1 } }),
    ]);
    expect(withParsedArguments(given).content).toEqual([
      { ...call("c0", '{"a": 1}'), arguments: { a: 1 } },
      given.content[1],
      given.content[2],
      given.content[3],
    ]);
    const none = response([call("c0", "{}", { arguments: {} })]);
    expect(withParsedArguments(none)).toBe(none);
  });

  it("the fold gives the parse back only for an event that says so: a journal written before keeps its calls as written", () => {
    const drafts = (flag: boolean) => [
      { type: "run.started", data: { sessionId: "s", task: "t", tools: [], limits: { maxTurns: 3 }, release: { runtime: "test", eventSchemaVersion: 1 } } },
      { type: "turn.started", data: { turnId: "turn_1", index: 1 } },
      { type: "model.requested", data: { turnId: "turn_1", requestHash: GENESIS_HASH, messageCount: 1 } },
      {
        type: "model.responded",
        data: { turnId: "turn_1", latencyMs: 0, response: response([call("c0", '{"path":"a"}')]), ...(flag ? { argumentsFromRaw: true } : {}) },
      },
    ];
    const parsed = reduceRun(eventsOf(drafts(true)));
    expect(parsed.messages[1]).toEqual({ role: "assistant", content: [{ ...call("c0", '{"path":"a"}'), arguments: { path: "a" } }] });
    expect(parsed.pendingToolCalls[0]?.arguments).toEqual({ path: "a" });
    const old = reduceRun(eventsOf(drafts(false)));
    expect(old.messages[1]).toEqual({ role: "assistant", content: [call("c0", '{"path":"a"}')] });
  });
});
