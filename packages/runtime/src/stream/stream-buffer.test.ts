// A stream's reader never holds the run back: deltas past the buffer are dropped (counted),
// durable parts are read from the journal whenever the reader gets to them.
import { callTools, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { readAll, rig } from "../__fixtures__/harness-fixtures.js";
import { DeltaBuffer } from "./delta-buffer.js";
import { isDelta, type RunStreamPart } from "./stream-parts.js";
import { durableOf, journaledParts, textByTurn, turns } from "./__fixtures__/stream-fixtures.js";

// Three model calls, two tool turns: 20 text deltas, 2 call starts and 3 argument deltas in all.
const steps = [
  callTools([{ name: "echo", args: { text: "one two three four" }, id: "call_a" }], "First I echo a long sentence for you."),
  callTools([{ name: "echo", args: { text: "five" }, id: "call_b" }], "Then a short one."),
  say("Both echoes came back as expected, all done."),
];

describe("a stream's reader", () => {
  it("that never reads: the run completes every durable step; the reader later gets them all and a count of the deltas lost", async () => {
    const { harness, journal } = rig(steps);
    const stream = harness.stream("Echo twice.", { maxBufferedDeltas: 3 });
    const result = await stream.result;
    expect(result.outcome?.status).toBe("completed");
    const types = (await readAll(journal, result.runId)).map((event) => event.type);
    expect(types.filter((type) => type === "action.committed")).toHaveLength(2);
    expect(types.at(-1)).toBe("run.completed");

    const parts: RunStreamPart[] = [];
    for await (const part of stream) parts.push(part);
    const deltas = parts.filter((part) => isDelta(part) && part.type !== "dropped");
    const dropped = parts.filter((part) => part.type === "dropped");
    expect(deltas).toHaveLength(3);
    expect(dropped).toEqual([{ type: "dropped", count: 22 }]);
    expect(stream.dropped).toBe(22);
    // Durable parts are never dropped.
    expect(durableOf(parts)).toEqual(await journaledParts(journal, result.runId));
    expect(parts.at(-1)).toEqual({ type: "result", result });
  });

  it("that reads slowly: the run does not wait for it; it still gets every durable part once, in order", async () => {
    const { harness, journal } = rig(steps);
    const stream = harness.stream("Echo twice.", { maxBufferedDeltas: 4 });
    let ended = false;
    void stream.result.then(() => {
      ended = true;
    });
    const parts: RunStreamPart[] = [];
    let readWhenEnded: number | undefined;
    for await (const part of stream) {
      parts.push(part);
      if (ended) readWhenEnded ??= parts.length;
      // Far slower than the run: many turns of the event loop per part.
      await turns(20);
    }
    // The run finished while the reader was still early in its parts.
    expect(readWhenEnded).toBeDefined();
    expect(readWhenEnded!).toBeLessThan(parts.length / 2);
    const result = await stream.result;
    expect(durableOf(parts)).toEqual(await journaledParts(journal, result.runId));
    const seqs = durableOf(parts).map((part) => part.seq);
    expect(new Set(seqs).size).toBe(seqs.length);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    const lost = parts.reduce((sum, part) => sum + (part.type === "dropped" ? part.count : 0), 0);
    expect(parts.filter((part) => isDelta(part) && part.type !== "dropped").length + lost).toBe(25);
  });

  it("that keeps up gets every delta, and the text deltas of each turn add up to its response", async () => {
    const { harness } = rig(steps);
    const stream = harness.stream("Echo twice.");
    const parts: RunStreamPart[] = [];
    for await (const part of stream) parts.push(part);
    expect(parts.some((part) => part.type === "dropped")).toBe(false);
    const responses = durableOf(parts).flatMap((part) => (part.type === "model-response" ? [part] : []));
    expect(textByTurn(parts)).toEqual(new Map(responses.map((response) => [response.turnId, response.text])));
  });
});

describe("DeltaBuffer", () => {
  it("keeps at most max deltas, one dropped part per run of drops, in place", () => {
    const buffer = new DeltaBuffer(2);
    const text = (value: string) => ({ type: "text-delta" as const, turnId: "t", attempt: 1, text: value });
    buffer.push(0, text("a"));
    buffer.push(0, text("b"));
    buffer.push(1, text("c"));
    buffer.push(1, text("d"));
    expect(buffer.take()?.part).toEqual(text("a"));
    buffer.push(2, text("e"));
    buffer.push(2, text("f"));
    expect([buffer.take(), buffer.take(), buffer.take(), buffer.take()].map((entry) => entry?.part)).toEqual([
      text("b"),
      { type: "dropped", count: 2 },
      text("e"),
      { type: "dropped", count: 1 },
    ]);
    expect(buffer.dropped).toBe(3);
    expect(buffer.size).toBe(0);
  });
});
