import { callTools, say } from "@yoke/testkit";
import { describe, expect, it, vi } from "vitest";
import { ADMITTED, countingTool, readAll, echoTool, rig } from "../__fixtures__/harness-fixtures.js";
import type { commitsPerTurn } from "./__fixtures__/commits-per-turn.js";

const counter = vi.hoisted(() => ({ value: undefined as ReturnType<typeof commitsPerTurn> | undefined }));

// A participant is one module and one line in the list: the test adds its own, last.
vi.mock("./participants.js", async (original) => {
  const { TURN_PARTICIPANTS } = await original<typeof import("./participants.js")>();
  const { commitsPerTurn: make } = await import("./__fixtures__/commits-per-turn.js");
  counter.value = make();
  return { TURN_PARTICIPANTS: [...TURN_PARTICIPANTS, counter.value.participant] };
});

describe("the turn transaction's commits", () => {
  it("a tool turn is two commits: the response with its admissions, then the outcomes with the next turn's request", async () => {
    const store = countingTool("store", "idempotent");
    const { harness, model, journal } = rig(
      [
        callTools([{ name: "echo", args: { text: "one" } }]),
        callTools([
          { name: "echo", args: { text: "two" } },
          { name: "store", args: { key: "k" } },
        ]),
        say("done"),
      ],
      { tools: [echoTool, store.tool] },
    );
    const result = await harness.start("do the thing");
    model.assertConsumed();
    expect(result.outcome).toEqual({ status: "completed" });
    const counts = counter.value!.counts;
    const turns = [...counts.keys()].filter((key) => key !== "(start)");
    expect(counts.get("(start)")).toBe(1);
    expect(turns).toHaveLength(3);
    // The two tool turns, then the answer: its response, then `run.completed`.
    expect(turns.map((turnId) => counts.get(turnId))).toEqual([2, 2, 2]);
    // The participant saw every commit the journal took, and nothing else.
    expect([...counts.values()].reduce((sum, count) => sum + count, 0)).toBe(journal.appends.length);
    expect(journal.appends[1]).toEqual(["model.responded", ...ADMITTED]);
  });

  it("a participant's settle hears of every tool attempt that ended, once, as dispatched", async () => {
    const { harness, model, journal } = rig(
      [
        callTools([
          { name: "echo", args: { text: "one" } },
          { name: "echo", args: { text: "two" } },
        ]),
        say("done"),
      ],
      { tools: [echoTool] },
    );
    const before = counter.value!.ended.length;
    const result = await harness.start("echo twice");
    model.assertConsumed();
    expect(result.outcome).toEqual({ status: "completed" });
    const completed = (await readAll(journal, result.runId)).flatMap((event) => (event.type === "action.committed" ? [event.data.attemptId] : []));
    expect(completed).toHaveLength(2);
    expect(counter.value!.ended.slice(before)).toEqual(completed.map((attemptId) => ({ attemptId, dispatched: true })));
  });
});
