import { YokeError, type ModelRequest } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { SCRIPTED_CAPABILITIES, createScriptedModel } from "./scripted-model.js";
import { rejectionOf } from "./rejection.js";
import {
  callTools,
  duplicateToolCallIds,
  failWith,
  malformedToolArguments,
  refuse,
  say,
  truncated,
  truncatedToolCall,
  unknownTool,
} from "./scripted-model-steps.js";

const request = (text = "hi"): ModelRequest => ({ messages: [{ role: "user", content: [{ type: "text", text }] }], tools: [] });

const rejection = rejectionOf;

describe("createScriptedModel", () => {
  it("fills response defaults and infers the stop reason", async () => {
    const model = createScriptedModel([say("done"), callTools([{ name: "echo", args: { text: "x" } }]), { content: [] }]);
    expect(await model.generate(request())).toEqual({
      provider: "scripted",
      model: "scripted-1",
      content: [{ type: "text", text: "done" }],
      stopReason: "end_turn",
      usage: { inputTokens: 0, outputTokens: 0 },
    });
    const tools = await model.generate(request());
    expect(tools.stopReason).toBe("tool_use");
    expect(tools.content).toEqual([{ type: "tool-call", toolCallId: "call_1", toolName: "echo", rawArguments: '{"text":"x"}', arguments: { text: "x" } }]);
    expect((await model.generate(request())).stopReason).toBe("end_turn");
    model.assertConsumed();
  });

  it("infers tool_use from content when no stop reason is given, and keeps given fields", async () => {
    const model = createScriptedModel([
      {
        id: "resp_1",
        content: [{ type: "tool-call", toolName: "echo", arguments: {} }],
        usage: { inputTokens: 5, outputTokens: 7 },
        warnings: ["temperature ignored"],
      },
    ]);
    const response = await model.generate(request());
    expect(response).toMatchObject({ id: "resp_1", stopReason: "tool_use", usage: { inputTokens: 5, outputTokens: 7 }, warnings: ["temperature ignored"] });
  });

  it("passes the request and call index to function steps", async () => {
    const seen: [string, number][] = [];
    const model = createScriptedModel([
      (req, index) => {
        const first = req.messages[0];
        seen.push([first?.role === "user" && first.content[0]!.type === "text" ? first.content[0]!.text : "?", index]);
        return say("one");
      },
      async (_req, index) => say(`call ${index}`),
    ]);
    await model.generate(request("first"));
    expect((await model.generate(request("second"))).content).toEqual([{ type: "text", text: "call 1" }]);
    expect(seen).toEqual([["first", 0]]);
  });

  it("rejects with the error of an error step, consuming it", async () => {
    const limited = new YokeError("PROVIDER_RATE_LIMITED", "slow down", { details: { retryAfterMs: 250 } });
    const model = createScriptedModel([failWith(limited), { error: new YokeError("PROVIDER_UNAVAILABLE", "down") }, say("ok")]);
    expect(await rejection(model.generate(request()))).toBe(limited);
    expect((await rejection(model.generate(request()))).code).toBe("PROVIDER_UNAVAILABLE");
    expect(model.remaining).toBe(1);
    await model.generate(request());
    model.finish();
  });

  it("numbers tool calls call_1, call_2, … per model", async () => {
    const steps = () => [callTools([{ name: "a" }, { name: "b" }]), callTools([{ name: "c" }, { name: "d", id: "mine" }])];
    for (const model of [createScriptedModel(steps()), createScriptedModel(steps())]) {
      const first = await model.generate(request());
      const second = await model.generate(request());
      const ids = [...first.content, ...second.content].map((part) => (part.type === "tool-call" ? part.toolCallId : ""));
      expect(ids).toEqual(["call_1", "call_2", "call_3", "mine"]);
    }
  });

  it("continues the numbering of call ids already in the transcript (a resumed run)", async () => {
    const model = createScriptedModel([callTools([{ name: "a" }])]);
    const resumed: ModelRequest = {
      tools: [],
      messages: [
        { role: "user", content: [{ type: "text", text: "go" }] },
        { role: "assistant", content: [{ type: "tool-call", toolCallId: "call_7", toolName: "a", rawArguments: "{}", arguments: {} }] },
      ],
    };
    const response = await model.generate(resumed);
    expect(response.content[0]).toMatchObject({ toolCallId: "call_8" });
  });

  it("builds fault steps", async () => {
    const model = createScriptedModel([
      malformedToolArguments("echo", '{"text": '),
      unknownTool("launch_rockets", { count: 3 }),
      duplicateToolCallIds([
        { name: "echo", args: { text: "a" } },
        { name: "echo", args: { text: "b" } },
      ]),
      duplicateToolCallIds([{ name: "echo" }, { name: "echo" }], "same"),
      refuse("I can't help with that."),
      truncated("The answer is"),
    ]);
    const malformed = (await model.generate(request())).content[0]!;
    expect(malformed).toMatchObject({ type: "tool-call", toolName: "echo", rawArguments: '{"text": ' });
    expect(malformed.type === "tool-call" && malformed.arguments).toBe(undefined);
    expect(malformed.type === "tool-call" && typeof malformed.argumentsError).toBe("string");

    expect((await model.generate(request())).content[0]).toMatchObject({ toolName: "launch_rockets", arguments: { count: 3 } });

    const duplicate = await model.generate(request());
    const ids = duplicate.content.map((part) => (part.type === "tool-call" ? part.toolCallId : ""));
    expect(ids).toEqual(["call_3", "call_3"]);
    const pinned = await model.generate(request());
    expect(pinned.content.map((part) => (part.type === "tool-call" ? part.toolCallId : ""))).toEqual(["same", "same"]);

    const refusal = await model.generate(request());
    expect(refusal.stopReason).toBe("refusal");
    // A refusal is its own part, never text (as the adapters report it).
    expect(refusal.content).toEqual([{ type: "refusal", text: "I can't help with that." }]);
    expect((await model.generate(request())).stopReason).toBe("max_tokens");
    model.assertConsumed();
  });

  it("scripts a tool call cut by the output limit, with the next auto id, after any complete calls", async () => {
    const model = createScriptedModel([
      truncatedToolCall("write_file", '{"path":"a.txt","text":"Once up', { text: "Writing it.", calls: [{ name: "echo", args: { text: "x" } }] }),
      truncatedToolCall("write_file", '{"pa', { id: "pinned" }),
    ]);
    const response = await model.generate(request());
    expect(response.stopReason).toBe("max_tokens");
    expect(response.content).toEqual([
      { type: "text", text: "Writing it." },
      { type: "tool-call", toolCallId: "call_1", toolName: "echo", rawArguments: '{"text":"x"}', arguments: { text: "x" } },
      { type: "tool-call-truncated", toolCallId: "call_2", toolName: "write_file", rawArguments: '{"path":"a.txt","text":"Once up' },
    ]);
    expect((await model.generate(request())).content).toEqual([
      { type: "tool-call-truncated", toolCallId: "pinned", toolName: "write_file", rawArguments: '{"pa' },
    ]);
  });

  it("numbers auto ids after a truncated call's call_N in the transcript (a resumed run)", async () => {
    const model = createScriptedModel([callTools([{ name: "echo" }])]);
    const resumed: ModelRequest = {
      messages: [
        { role: "user", content: [{ type: "text", text: "hi" }] },
        { role: "assistant", content: [{ type: "tool-call-truncated", toolCallId: "call_5", toolName: "echo", rawArguments: "{" }] },
      ],
      tools: [],
    };
    expect((await model.generate(resumed)).content[0]).toMatchObject({ toolCallId: "call_6" });
  });

  it("rejects a call with no steps left with PROVIDER_UNEXPECTED_CALL", async () => {
    const model = createScriptedModel([]);
    const error = await rejection(model.generate(request()));
    expect(error.code).toBe("PROVIDER_UNEXPECTED_CALL");
    expect(model.unexpectedCalls).toBe(1);
  });

  it("assertConsumed names how many steps remain", () => {
    const model = createScriptedModel([say("a"), say("b")]);
    let caught: unknown;
    try {
      model.assertConsumed();
    } catch (error) {
      caught = error;
    }
    expect(YokeError.hasCode(caught, "PROVIDER_UNCONSUMED_STEPS")).toBe(true);
    expect((caught as YokeError).details.remaining).toBe(2);
    expect((caught as YokeError).message).toContain("2");
  });

  it("records deep copies of the requests it received", async () => {
    const model = createScriptedModel([say("a")]);
    const sent = request("original");
    await model.generate(sent);
    (sent.messages[0] as { content: { text: string }[] }).content[0]!.text = "mutated";
    expect(model.calls).toEqual([request("original")]);
  });

  it("records nothing when recordCalls is false", async () => {
    const model = createScriptedModel([say("a")], { recordCalls: false });
    await model.generate(request());
    expect(model.calls).toEqual([]);
  });

  it("honours an aborted signal with CANCELLED and consumes nothing", async () => {
    const model = createScriptedModel([say("a")]);
    const controller = new AbortController();
    controller.abort();
    const error = await rejection(model.generate(request(), { signal: controller.signal }));
    expect(error.code).toBe("CANCELLED");
    expect(model.remaining).toBe(1);
  });

  it("reports a full capability matrix, overridable", () => {
    const model = createScriptedModel([], { capabilities: { contextWindow: 1000 }, provider: "fake", modelId: "fake-2" });
    expect(model.specificationVersion).toBe("v1");
    expect(model.provider).toBe("fake");
    expect(model.modelId).toBe("fake-2");
    expect(model.capabilities).toEqual({ ...SCRIPTED_CAPABILITIES, contextWindow: 1000 });
    expect(SCRIPTED_CAPABILITIES).toMatchObject({ streaming: false, parallelToolCalls: true, toolCalls: true, contextWindow: 200_000 });
  });
});
