import { YokeError, parseYokeEvent, type Message, type ToolResultPart } from "@yoke/protocol";
import { callTools, duplicateToolCallIds, malformedToolArguments, say, unknownTool } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ADMITTED, countingTool, echoTool, failingTool, keyedTool, readAll, rig } from "./__fixtures__/harness-fixtures.js";
import { defineTool } from "./define-tool.js";

/** The tool results the model was shown in its second request. */
function resultsShown(messages: readonly Message[]): ToolResultPart[] {
  const tool = messages.filter((message) => message.role === "tool").at(-1);
  return tool?.role === "tool" ? tool.content : [];
}

describe("invalid tool calls go back to the model as error results", () => {
  it.each([
    ["malformed JSON arguments", malformedToolArguments("echo", '{"text": "unterminated'), "TOOL_INPUT_INVALID", /not valid JSON/],
    ["an unknown tool", unknownTool("launch_rockets", { count: 3 }), "TOOL_UNKNOWN", /no tool named "launch_rockets".*echo/],
    [
      "input that fails the schema",
      callTools([{ name: "echo", args: { text: 42 } }]),
      "TOOL_INPUT_INVALID",
      /- text: Invalid input: expected string, received number/,
    ],
  ])("%s", async (_label, step, code, message) => {
    const { harness, model, journal } = rig([
      step,
      (request) => {
        const [result] = resultsShown(request.messages);
        expect(result?.result.status).toBe("error");
        expect(result?.result.error?.code).toBe(code);
        expect(result?.result.error?.message).toMatch(message);
        return say("sorry, done");
      },
    ]);
    const { runId, outcome } = await harness.start("t");
    model.assertConsumed();
    expect(outcome?.status).toBe("completed");
    // Rejected calls never start; with nothing to run, the next turn joins the same append.
    expect(journal.appends[1]).toEqual(["model.responded", "tool.rejected", "turn.started", "context.compiled", "model.requested"]);
    const rejected = (await readAll(journal, runId)).map(parseYokeEvent).find((event) => event.type === "tool.rejected");
    expect(rejected?.type === "tool.rejected" && rejected.data.code).toBe(code);
  });

  it("runs the first of calls sharing an id and rejects the repeats", async () => {
    const store = countingTool("store", "idempotent");
    const { harness, model, journal } = rig(
      [
        duplicateToolCallIds([
          { name: "store", args: { key: "first" } },
          { name: "store", args: { key: "second" } },
        ]),
        say("done"),
      ],
      { tools: [echoTool, store.tool] },
    );
    const { state } = await harness.start("t");
    model.assertConsumed();
    expect(store.calls.map((call) => call.key)).toEqual(["first"]);
    expect(journal.appends.slice(1, 3)).toEqual([
      ["model.responded", ...ADMITTED, "tool.rejected"],
      ["action.committed", "turn.started", "context.compiled", "model.requested"],
    ]);
    expect(resultsShown(state.messages).map((part) => [part.toolCallId, part.result.status, part.result.error?.code])).toEqual([
      ["call_1", "ok", undefined],
      ["call_1", "error", "TOOL_DUPLICATE_CALL_ID"],
    ]);
  });

  it("a throwing handler gives a TOOL_FAILED result with the error's message, not its stack", async () => {
    const { harness } = rig([callTools([{ name: "explode" }]), say("ok")], { tools: [failingTool] });
    const { state, outcome } = await harness.start("t");
    expect(outcome?.status).toBe("completed");
    const [result] = resultsShown(state.messages);
    expect(result?.result.error).toEqual({ code: "TOOL_FAILED", message: "the fuse was lit" });
    expect(JSON.stringify(result)).not.toMatch(/at .*\.ts:\d+/);
  });

  it("a handler that outlives its timeout gives a TOOL_TIMEOUT result and sees its signal abort", async () => {
    let sawAbort = false;
    const hang = defineTool({
      name: "hang",
      description: "Waits for its signal.",
      input: z.object({}),
      sideEffect: "none",
      timeoutMs: 1,
      execute: (_input, { signal }) =>
        new Promise<string>((_resolve, reject) => {
          signal.addEventListener("abort", () => {
            sawAbort = true;
            reject(new Error("aborted"));
          });
        }),
    });
    const { harness } = rig([callTools([{ name: "hang" }]), say("ok")], { tools: [hang] });
    const { state } = await harness.start("t");
    const [result] = resultsShown(state.messages);
    expect(result?.result.error?.code).toBe("TOOL_TIMEOUT");
    expect(sawAbort).toBe(true);
  });

  it("a handler that ignores its signal is abandoned at the timeout", async () => {
    const deaf = defineTool({
      name: "deaf",
      description: "Never finishes.",
      input: z.object({}),
      sideEffect: "none",
      timeoutMs: 1,
      execute: () => new Promise<string>(() => undefined),
    });
    const { harness } = rig([callTools([{ name: "deaf" }]), say("ok")], { tools: [deaf] });
    const { state } = await harness.start("t");
    expect(resultsShown(state.messages)[0]?.result.error?.code).toBe("TOOL_TIMEOUT");
  });

  it("a handler returning something that is not a ToolOutput gives TOOL_FAILED", async () => {
    const bad = defineTool({
      name: "bad",
      description: "Returns garbage.",
      input: z.object({}),
      sideEffect: "none",
      execute: async () => ({ content: "x", output: { when: new Date(0) } }) as never,
    });
    const { harness } = rig([callTools([{ name: "bad" }]), say("ok")], { tools: [bad] });
    const { state } = await harness.start("t");
    expect(resultsShown(state.messages)[0]?.result.error?.code).toBe("TOOL_FAILED");
  });

  it("runs consecutive side-effect-free calls in parallel and keeps results in proposal order", async () => {
    const order: string[] = [];
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = defineTool({
      name: "slow",
      description: "Waits for the fast one.",
      input: z.object({}),
      sideEffect: "none",
      execute: async () => {
        await gate;
        order.push("slow");
        return "slow";
      },
    });
    const fast = defineTool({
      name: "fast",
      description: "Lets the slow one go.",
      input: z.object({}),
      sideEffect: "none",
      execute: async () => {
        order.push("fast");
        release();
        return "fast";
      },
    });
    const { harness } = rig([callTools([{ name: "slow" }, { name: "fast" }]), say("ok")], { tools: [slow, fast] });
    const { state } = await harness.start("t");
    expect(order).toEqual(["fast", "slow"]);
    expect(resultsShown(state.messages).map((part) => part.result.content[0]!.text)).toEqual(["slow", "fast"]);
  });

  it("a write waits for an earlier conflicting write's retry, so effects land in proposal order", async () => {
    const writes: string[] = [];
    const set = defineTool({
      name: "set",
      description: "Sets a key; the first attempt of the value `first` is cut before it writes.",
      input: z.object({ key: z.string(), value: z.string() }),
      sideEffect: "idempotent",
      access: ({ key }) => ({ reads: [], writes: [key] }),
      async execute({ key, value }, context) {
        if (value === "first" && context.attempt === 1) throw new YokeError("PROVIDER_STREAM_CUT", "the stream was cut before the write");
        writes.push(`${key}=${value}`);
        return "set";
      },
    });
    const calls = [
      { name: "set", args: { key: "x", value: "first" } },
      { name: "set", args: { key: "x", value: "second" } },
      { name: "set", args: { key: "y", value: "other" } },
    ];
    const { harness, journal } = rig([callTools(calls), say("done")], { tools: [set] });
    const { outcome, state } = await harness.start("set x twice and y once");
    expect(outcome?.status).toBe("completed");
    // x=second waits for x=first's attempt 2; y, which conflicts with neither, does not wait.
    expect(writes).toEqual(["y=other", "x=first", "x=second"]);
    expect(journal.appends[2]).toEqual(["action.failed", "action.leased", "action.executing", "action.committed"]);
    expect(state.actions.map((action) => action.status.state)).toEqual(["committed", "committed", "committed"]);
  });

  it("when the batch escalates, a write still waiting on the escalated one never runs and fails as not dispatched", async () => {
    const ran: string[] = [];
    const launch = keyedTool("launch", "irreversible", async ({ key }) => {
      ran.push(`launch ${key}`);
      throw new YokeError("TOOL_OUTCOME_UNKNOWN", "the acknowledgement was lost");
    });
    const announce = keyedTool("announce", "irreversible", async ({ key }) => {
      ran.push(`announce ${key}`);
      return "announced";
    });
    const { harness, journal } = rig(
      [
        callTools([
          { name: "launch", args: { key: "rocket" } },
          { name: "announce", args: { key: "rocket" } },
        ]),
        say("done"),
      ],
      {
        tools: [launch, announce],
      },
    );
    const { outcome, state } = await harness.start("launch, then announce");
    expect(outcome).toMatchObject({ status: "escalated", actionId: state.actions[0]!.actionId });
    expect(ran).toEqual(["launch rocket"]);
    expect(state.actions.map((action) => action.status.state)).toEqual(["uncertain", "failed"]);
    const announced = (await readAll(journal, state.runId)).map(parseYokeEvent).find((event) => event.type === "action.failed");
    expect(announced?.type === "action.failed" && [announced.data.dispatched, announced.data.result.error?.code]).toEqual([false, "CANCELLED"]);
  });

  it("when several actions of a batch are left uncertain, the run escalates on the first and names the others", async () => {
    const launch = keyedTool("launch", "irreversible", async () => {
      throw new YokeError("TOOL_OUTCOME_UNKNOWN", "the acknowledgement was lost");
    });
    const { harness } = rig(
      [
        callTools([
          { name: "launch", args: { key: "a" } },
          { name: "launch", args: { key: "b" } },
        ]),
        say("done"),
      ],
      { tools: [launch] },
    );
    const { outcome, state } = await harness.start("launch two");
    expect(outcome).toMatchObject({ status: "escalated", actionId: state.actions[0]!.actionId });
    expect(outcome?.status === "escalated" && outcome?.reason).toContain(`also left uncertain: ${state.actions[1]!.actionId}`);
  });

  it("hands the handler its action id and attempt, and zod's parsed input (defaults applied)", async () => {
    const seen: unknown[] = [];
    const withDefault = defineTool({
      name: "defaults",
      description: "Has a default.",
      input: z.object({ n: z.number().default(7) }),
      sideEffect: "none",
      execute: async (input, context) => {
        seen.push([input, context.actionId, context.idempotencyKey, context.attempt]);
        return "ok";
      },
    });
    const { harness, journal } = rig([callTools([{ name: "defaults", args: {} }]), say("ok")], { tools: [withDefault] });
    const { runId } = await harness.start("t");
    expect(seen).toEqual([[{ n: 7 }, "action_00000000000001", "action_00000000000001", 1]]);
    const admitted = (await readAll(journal, runId)).map(parseYokeEvent).find((event) => event.type === "action.admitted");
    expect(admitted?.type === "action.admitted" && admitted.data.input).toEqual({ n: 7 });
  });
});
