// A run's stream as the AI SDK's UI message stream, read by the installed `ai` package's own
// client code: DefaultChatTransport parses the SSE response as useChat does, and
// readUIMessageStream folds the chunks into the assistant message useChat would show.
import { callTools, say } from "@yoke/testkit";
import { DefaultChatTransport, readUIMessageStream, type UIMessage } from "ai";
import { describe, expect, it } from "vitest";
import { rig } from "../__fixtures__/harness-fixtures.js";
import { FRIEND_IBAN, functionEngine, payTool, policyRig } from "../__fixtures__/policy-fixtures.js";
import { gatedLookup } from "../stream/__fixtures__/stream-fixtures.js";
import { approvalResponsesOf } from "./approval-responses.js";
import { pipeUIMessageStreamToResponse, toUIMessageStream, toUIMessageStreamResponse } from "./ui-message-stream.js";
import type { UIMessageChunk } from "./ui-message-chunks.js";
import type { RunStreamPart } from "../stream/stream-parts.js";

/** What useChat does with a response: its transport parses the SSE, the message is folded chunk by chunk. */
async function readAsUseChat(response: Response, message?: UIMessage): Promise<{ message: UIMessage; chunks: UIMessageChunk[] }> {
  const transport = new DefaultChatTransport({ api: "http://chat.test/api/chat", fetch: async () => response });
  const stream = await transport.sendMessages({ chatId: "chat_1", trigger: "submit-message", messageId: undefined, messages: [], abortSignal: undefined });
  const chunks: UIMessageChunk[] = [];
  const tee = stream.pipeThrough(
    new TransformStream({
      transform(chunk, controller) {
        chunks.push(chunk as UIMessageChunk);
        controller.enqueue(chunk);
      },
    }),
  );
  let last: UIMessage | undefined;
  for await (const state of readUIMessageStream({ stream: tee, terminateOnError: true, ...(message === undefined ? {} : { message }) })) last = state;
  if (last === undefined) throw new Error("no message was read");
  return { message: last, chunks };
}

const steps = [callTools([{ name: "lookup", args: { city: "Paris" }, id: "call_paris" }], "Let me look."), say("Sunny in Paris.")];

describe("toUIMessageStreamResponse", () => {
  it("is read by the ai package's client as one assistant message: streamed text, the tool's input and output, the outcome", async () => {
    const lookup = gatedLookup();
    lookup.release();
    const { harness } = rig(steps, { tools: [lookup.tool] });
    const stream = harness.stream("Weather in Paris?");
    const response = toUIMessageStreamResponse(stream);
    expect(response.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1");
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const { message, chunks } = await readAsUseChat(response);
    expect(message.id).toBe(stream.runId);
    expect(message.role).toBe("assistant");
    expect(message.parts).toEqual([
      { type: "step-start" },
      { type: "text", text: "Let me look.", state: "done" },
      expect.objectContaining({ type: "tool-lookup", toolCallId: "call_paris", state: "output-available", input: { city: "Paris" }, output: "sunny in Paris" }),
      { type: "step-start" },
      { type: "text", text: "Sunny in Paris.", state: "done" },
    ]);
    expect(message.metadata).toEqual({ runId: stream.runId, outcome: { status: "completed" } });
    // Text came as deltas, word by word, before the step's input was available.
    expect(chunks.filter((chunk) => chunk.type === "text-delta").length).toBeGreaterThan(2);
    expect(chunks.at(-1)).toEqual({ type: "finish", finishReason: "stop", messageMetadata: { runId: stream.runId, outcome: { status: "completed" } } });
  });

  it("surfaces an approval as a tool part the UI answers; the answer comes back through approvalResponsesOf and the run continues", async () => {
    const pay = payTool();
    const { harness, journal } = policyRig([callTools([{ name: "pay", args: { to: FRIEND_IBAN, amount: 10 }, id: "c1" }]), say("Paid.")], {
      policy: functionEngine(() => ["require_approval", "payments-need-a-person", "a payment needs a person"]),
      tools: [pay.tool],
    });
    const first = harness.stream(`Pay ${FRIEND_IBAN}`);
    const { message } = await readAsUseChat(toUIMessageStreamResponse(first));
    const part = message.parts.find((item) => item.type === "tool-pay") as { state: string; approval: { id: string; requestReason?: string } };
    expect(part).toMatchObject({ state: "approval-requested", approval: { requestReason: "a payment needs a person" } });
    expect(message.metadata).toEqual({ runId: first.runId, waiting: "approval" });

    // What addToolApprovalResponse does on the client, then the messages it sends back.
    const answered: UIMessage = {
      ...message,
      parts: message.parts.map((item) =>
        item === (part as unknown) ? { ...item, state: "approval-responded", approval: { id: part.approval.id, approved: true } } : item,
      ) as UIMessage["parts"],
    };
    const answers = approvalResponsesOf([{ id: "u1", role: "user", parts: [{ type: "text", text: "pay" }] }, answered]);
    expect(answers).toEqual([{ runId: first.runId, approvalId: part.approval.id, approved: true }]);

    const since = (await harness.getState(first.runId)).length;
    await harness.approve(answers[0]!.runId, answers[0]!.approvalId, { approver: "me@example.com" });
    const continued = await readAsUseChat(toUIMessageStreamResponse(harness.resumeStream(first.runId), { since }), answered);
    expect(pay.calls).toHaveLength(1);
    const parts = continued.message.parts;
    expect(parts.filter((item) => item.type === "tool-pay")).toEqual([
      expect.objectContaining({ toolCallId: "c1", state: "output-available", approval: expect.objectContaining({ approved: true }) }),
    ]);
    expect(parts.at(-1)).toEqual({ type: "text", text: "Paid.", state: "done" });
    // The client merges metadata: the outcome joins what the first response said.
    expect(continued.message.metadata).toMatchObject({ runId: first.runId, outcome: { status: "completed" } });
    expect((await journal.head({ tenantId: "tenant_test", runId: first.runId }))!.length).toBeGreaterThan(since);
  });

  it("a replay (useChat's resume) rebuilds the same message from the journal alone", async () => {
    const lookup = gatedLookup();
    lookup.release();
    const { harness } = rig(steps, { tools: [lookup.tool] });
    const live = await readAsUseChat(toUIMessageStreamResponse(harness.stream("Weather in Paris?")));
    const replayed = await readAsUseChat(toUIMessageStreamResponse(harness.resumeStream(live.message.id)));
    expect(replayed.message).toEqual(live.message);
    // No deltas in a replay: each text comes whole, from the journaled response.
    expect(replayed.chunks.filter((chunk) => chunk.type === "text-delta").map((chunk) => (chunk as { delta: string }).delta)).toEqual([
      "Let me look.",
      "Sunny in Paris.",
    ]);
  });

  it("a retried model call's partial output is reset; a response that is not what was streamed rewrites its step", async () => {
    const at = (type: "text-delta", text: string, attempt: number, turnId = "turn_1") => ({ type, turnId, attempt, text });
    const parts: RunStreamPart[] = [
      at("text-delta", "Hel", 1),
      { type: "model-failed", seq: 3, turnId: "turn_1", attempt: 1, code: "PROVIDER_STREAM_CUT", message: "cut", retrying: true },
      at("text-delta", "Good", 2),
      { type: "model-response", seq: 4, turnId: "turn_1", text: "Goodbye.", reasoning: "", toolCalls: [], stopReason: "end_turn" },
      at("text-delta", "Wrong", 1, "turn_2"),
      { type: "model-response", seq: 6, turnId: "turn_2", text: "Right.", reasoning: "", toolCalls: [], stopReason: "end_turn" },
    ];
    const run = {
      runId: "run_fake",
      async *[Symbol.asyncIterator]() {
        yield* parts;
      },
    };
    const { message, chunks } = await readAsUseChat(toUIMessageStreamResponse(run));
    expect(message.parts).toEqual([
      { type: "step-start" },
      { type: "text", text: "Goodbye.", state: "done" },
      { type: "step-start" },
      { type: "text", text: "Right.", state: "done" },
    ]);
    expect(chunks.filter((chunk) => chunk.type === "reset-step")).toHaveLength(2);
    // Only the part missing from what was streamed is written after the retry.
    expect(chunks.filter((chunk) => chunk.type === "text-delta").map((chunk) => (chunk as { delta: string }).delta)).toEqual([
      "Hel",
      "Good",
      "bye.",
      "Wrong",
      "Right.",
    ]);
    // A stream that ends without its result part writes no finish.
    expect(chunks.at(-1)?.type).not.toBe("finish");
  });

  it("a start that fails ends with an error chunk and a finish", async () => {
    const { harness } = rig([say("nothing")]);
    await harness.start("taken", { runId: "run_taken" });
    const chunks: UIMessageChunk[] = [];
    for await (const chunk of toUIMessageStream(harness.stream("again", { runId: "run_taken" }))) chunks.push(chunk);
    expect(chunks.map((chunk) => chunk.type)).toEqual(["start", "error", "finish"]);
    expect(chunks[1]).toMatchObject({ errorText: expect.stringContaining("RUN_ALREADY_EXISTS") });
  });
});

describe("pipeUIMessageStreamToResponse", () => {
  it("writes the SSE to a node response; a client that leaves detaches and the run goes on", async () => {
    const lookup = gatedLookup();
    const { harness } = rig(steps, { tools: [lookup.tool] });
    const stream = harness.stream("Weather in Paris?");
    const written: string[] = [];
    let onClose: () => void = () => {};
    const piped = pipeUIMessageStreamToResponse(stream, {
      writeHead: () => undefined,
      write: (chunk) => written.push(new TextDecoder().decode(chunk)),
      end: () => undefined,
      on: (_event, listener) => {
        onClose = listener;
      },
    });
    await lookup.entered;
    onClose();
    await piped;
    lookup.release();
    expect((await stream.result).outcome?.status).toBe("completed");
    expect(written[0]).toMatch(/^data: \{"type":"start"/);
    expect(written.join("")).not.toContain("[DONE]");
  });
});
