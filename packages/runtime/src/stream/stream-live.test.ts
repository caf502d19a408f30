// harness.stream: parts arrive while the run goes on, match what the journal holds, and the
// stream's cancel / detach / errors behave as documented.
import { YokeError, parseYokeEvent } from "@yoke/protocol";
import { callTools, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { readAll, rig } from "../__fixtures__/harness-fixtures.js";
import type { RunStreamPart } from "./stream-parts.js";
import { argumentsByCall, durableOf, gatedLookup, journaledParts, textByTurn } from "./__fixtures__/stream-fixtures.js";

const steps = [callTools([{ name: "lookup", args: { city: "Paris, France" }, id: "call_paris" }], "Let me look that up."), say("It is sunny in Paris today.")];

describe("harness.stream", () => {
  it("yields deltas before the run ends, and durable parts that match the journal", async () => {
    const lookup = gatedLookup();
    const { harness, journal } = rig(steps, { tools: [lookup.tool] });
    const stream = harness.stream("Weather in Paris?");
    let ended = false;
    void stream.result.then(() => {
      ended = true;
    });
    const parts: RunStreamPart[] = [];
    const iterator = stream[Symbol.asyncIterator]();
    // Everything of turn 1 arrives while the tool still holds the run.
    for (;;) {
      const next = await iterator.next();
      if (next.done) throw new Error("the stream ended early");
      parts.push(next.value);
      if (next.value.type === "model-response") break;
    }
    await lookup.entered;
    expect(ended).toBe(false);
    expect(parts.map((part) => part.type)).toEqual([
      "run-started",
      ...Array<string>(5).fill("text-delta"),
      "tool-call-start",
      "tool-call-delta",
      "tool-call-delta",
      "model-response",
    ]);
    lookup.release();
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) parts.push(next.value);
    const result = await stream.result;
    expect(result.outcome?.status).toBe("completed");

    // The deltas add up to the journaled response: text per turn, arguments per call.
    const responses = durableOf(parts).flatMap((part) => (part.type === "model-response" ? [part] : []));
    expect(responses.map((response) => response.text)).toEqual(["Let me look that up.", "It is sunny in Paris today."]);
    expect(textByTurn(parts)).toEqual(new Map(responses.map((response) => [response.turnId, response.text])));
    expect(argumentsByCall(parts)).toEqual(new Map([["call_paris", '{"city":"Paris, France"}']]));
    expect(responses[0]!.toolCalls).toEqual([
      { toolCallId: "call_paris", toolName: "lookup", rawArguments: '{"city":"Paris, France"}', input: { city: "Paris, France" } },
    ]);
    const journaled = (await readAll(journal, result.runId))
      .map(parseYokeEvent)
      .flatMap((event) => (event.type === "model.responded" ? [event.data.response] : []));
    expect(journaled.map((response) => response.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join(""))).toEqual(
      responses.map((response) => response.text),
    );

    // Every durable part, once and in journal order; then the result, last.
    expect(durableOf(parts)).toEqual(await journaledParts(journal, result.runId));
    expect(parts.map((part) => part.type).slice(-3)).toEqual(["model-response", "run-ended", "result"]);
    expect(parts.find((part) => part.type === "tool-result")).toMatchObject({
      toolCallId: "call_paris",
      rejected: false,
      result: { status: "ok", content: [{ text: "sunny in Paris, France" }] },
    });
    expect(parts.at(-1)).toEqual({ type: "result", result });
  });

  it("breaking out of the loop only detaches: the run goes on to its outcome", async () => {
    const lookup = gatedLookup();
    const { harness, journal } = rig(steps, { tools: [lookup.tool] });
    const stream = harness.stream("Weather in Paris?");
    for await (const part of stream) if (part.type === "run-started") break;
    lookup.release();
    const result = await stream.result;
    expect(result.outcome?.status).toBe("completed");
    expect((await journaledParts(journal, result.runId)).at(-1)).toMatchObject({ type: "run-ended", outcome: { status: "completed" } });
  });

  it("cancel() ends the run cancelled as an interrupt does: after the batch in flight, journaled with its reason", async () => {
    const lookup = gatedLookup();
    const { harness, journal } = rig(steps, { tools: [lookup.tool] });
    const stream = harness.stream("Weather in Paris?");
    const parts: RunStreamPart[] = [];
    const reading = (async () => {
      for await (const part of stream) parts.push(part);
    })();
    await lookup.entered;
    await stream.cancel("the user pressed stop");
    lookup.release();
    const result = await stream.result;
    await reading;
    expect(result.outcome).toEqual({ status: "cancelled", reason: "the user pressed stop" });
    const types = (await readAll(journal, result.runId)).map((event) => event.type);
    expect(types.slice(-3)).toEqual(["action.committed", "interrupt.landed", "run.completed"]);
    expect(parts.at(-2)).toMatchObject({ type: "run-ended", outcome: { status: "cancelled" } });
    // Cancelling a finished run is a no-op.
    await stream.cancel("again");
  });

  it("cancel() before the run's first append aborts the start", async () => {
    const { harness } = rig([say("never asked")]);
    const stream = harness.stream("Anything");
    await stream.cancel("changed my mind");
    const result = await stream.result;
    expect(result.outcome).toEqual({ status: "cancelled", reason: "changed my mind" });
  });

  it("the options' signal cancels the run too", async () => {
    const lookup = gatedLookup();
    const { harness } = rig(steps, { tools: [lookup.tool] });
    const controller = new AbortController();
    const stream = harness.stream("Weather in Paris?", { signal: controller.signal });
    await lookup.entered;
    controller.abort("gone");
    lookup.release();
    expect((await stream.result).outcome).toEqual({ status: "cancelled", reason: "gone" });
  });

  it("ends with an error part when the start rejects, and never replays a run it did not start", async () => {
    const { harness } = rig([say("first"), say("second")]);
    const first = await harness.start("One", { runId: "run_taken" });
    const stream = harness.stream("Two", { runId: first.runId });
    const parts: RunStreamPart[] = [];
    for await (const part of stream) parts.push(part);
    expect(parts).toHaveLength(1);
    expect(parts[0]!.type).toBe("error");
    expect(YokeError.hasCode((parts[0] as { error: unknown }).error, "RUN_ALREADY_EXISTS")).toBe(true);
    await expect(stream.result).rejects.toMatchObject({ code: "RUN_ALREADY_EXISTS" });
  });

  it("refuses bad stream options and a second consumer with CONFIG_INVALID", async () => {
    const { harness } = rig([say("done")]);
    for (const bad of [-1, 1.5, "10"]) {
      expect(() => harness.stream("x", { maxBufferedDeltas: bad as number })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    }
    const stream = harness.stream("x");
    stream[Symbol.asyncIterator]();
    expect(() => stream[Symbol.asyncIterator]()).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    await stream.result;
  });
});
