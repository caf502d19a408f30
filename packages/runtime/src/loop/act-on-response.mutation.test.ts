// act-on-response.ts, refusalReason: the words a refusal's wait carries (run.waiting's reason,
// the waiting result's detail, a closed wait's outcome). Mutation testing (issue 17): the
// parts joined without a line break, and the text not trimmed, survived every earlier test
// (each had one refusal part, with no surrounding white space).
import { say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { rig } from "../__fixtures__/harness-fixtures.js";
import type { RunResult, WaitingRunResult } from "../harness-types.js";

describe("the words a refusal's wait carries", () => {
  it("several refusal parts: each on its own line, in order", async () => {
    const { harness } = rig([
      {
        content: [
          { type: "refusal", text: "I can't help with that." },
          { type: "text", text: "Let me explain." },
          { type: "refusal", text: "It would harm someone." },
        ],
        stopReason: "refusal",
      },
    ]);
    const result = (await harness.start("t")) as RunResult | WaitingRunResult;
    expect(result.waiting).toEqual({ kind: "human", reason: "refusal", detail: "I can't help with that.\nIt would harm someone.", approvals: [] });
    expect(result.state.waiting?.reason).toBe("I can't help with that.\nIt would harm someone.");
  });

  it("a filter's note that came as text, in several parts: each on its own line, in order", async () => {
    const { harness } = rig([
      {
        content: [
          { type: "text", text: "Blocked by the content filter." },
          { type: "text", text: "Category: violence." },
        ],
        stopReason: "content_filter",
      },
    ]);
    const result = (await harness.start("t")) as RunResult | WaitingRunResult;
    expect(result.waiting).toEqual({
      kind: "human",
      reason: "content_filter",
      detail: "Blocked by the content filter.\nCategory: violence.",
      approvals: [],
    });
  });

  it("white space around the refusal's words is trimmed, and a closed wait ends refused with them", async () => {
    const { harness } = rig([{ content: [{ type: "refusal", text: "  \n I won't do that.\n\n" }], stopReason: "refusal" }]);
    const result = (await harness.start("t")) as RunResult | WaitingRunResult;
    expect(result.waiting).toEqual({ kind: "human", reason: "refusal", detail: "I won't do that.", approvals: [] });
    expect((await harness.resume(result.runId, { close: "" })).outcome).toEqual({ status: "refused", reason: "I won't do that." });
  });

  it("a refusal part of white space only says nothing: the text beside it is the reason, else the stop reason", async () => {
    const waitingAfter = async (text: string, stopReason: "refusal" | "content_filter") => {
      const { harness } = rig([
        {
          content: [
            { type: "refusal", text: "   " },
            { type: "text", text },
          ],
          stopReason,
        },
      ]);
      return ((await harness.start("t")) as RunResult | WaitingRunResult).waiting;
    };
    expect(await waitingAfter(" Blocked by the content filter. ", "content_filter")).toEqual({
      kind: "human",
      reason: "content_filter",
      detail: "Blocked by the content filter.",
      approvals: [],
    });
    expect(await waitingAfter("\n", "refusal")).toEqual({ kind: "human", reason: "refusal", detail: "the model stopped with refusal", approvals: [] });
  });
});

// What is a refusal (mutation testing, issue 17: `some` as `every`, and the stop reason's test as false, passed the
// whole suite; Stryker reported both as timeouts): any refusal part, whatever else the response holds and whatever its stop
// reason; or the stop reason alone.
describe("what the loop takes for a refusal", () => {
  it("a refusal part beside text, with stop reason end_turn: the run waits, the completion check never sees it", async () => {
    const seen: string[] = [];
    const { harness, model } = rig(
      [
        {
          content: [
            { type: "text", text: "Here is the plan." },
            { type: "refusal", text: "I can't run it." },
          ],
          stopReason: "end_turn",
        },
        say("unused"),
      ],
      {
        checkCompletion: async ({ response }) => {
          seen.push(response.stopReason);
          return { passed: true };
        },
      },
    );
    const result = (await harness.start("t")) as RunResult | WaitingRunResult;
    expect(result.waiting).toEqual({ kind: "human", reason: "refusal", detail: "I can't run it.", approvals: [] });
    expect(seen).toEqual([]);
    expect(model.remaining).toBe(1);
  });

  it("stop reason refusal with no refusal part: the run waits, with the text's words", async () => {
    const { harness } = rig([{ content: [{ type: "text", text: "I can't help with that." }], stopReason: "refusal" }, say("unused")]);
    const result = (await harness.start("t")) as RunResult | WaitingRunResult;
    expect(result.waiting).toEqual({ kind: "human", reason: "refusal", detail: "I can't help with that.", approvals: [] });
  });

  it("an answer with no parts at all is no refusal: the run completes", async () => {
    const { harness } = rig([{ content: [], stopReason: "end_turn" }]);
    const result = (await harness.start("t")) as RunResult | WaitingRunResult;
    expect(result.waiting).toBeUndefined();
    expect(result.outcome).toEqual({ status: "completed" });
  });
});
