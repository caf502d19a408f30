// harness.resumeStream: a stream that starts late replays the run from its journal, then
// continues live, with nothing missed or repeated at the seam.
import { callTools, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { rig } from "../__fixtures__/harness-fixtures.js";
import { FRIEND_IBAN, functionEngine, payTool, policyRig } from "../__fixtures__/policy-fixtures.js";
import type { RunStream } from "./run-stream-types.js";
import type { RunStreamPart } from "./stream-parts.js";
import { durableOf, gatedLookup, journaledParts, textByTurn } from "./__fixtures__/stream-fixtures.js";

async function drain(stream: RunStream): Promise<RunStreamPart[]> {
  const parts: RunStreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

describe("harness.resumeStream", () => {
  it("replays a waiting run from the journal, then streams the resumed drive live: no gap, no duplicate", async () => {
    const pay = payTool();
    const { harness, journal } = policyRig(
      [callTools([{ name: "pay", args: { to: FRIEND_IBAN, amount: 10 }, id: "c1" }]), say("Paid your friend ten euros.")],
      {
        policy: functionEngine(() => ["require_approval", "payments-need-a-person", "a payment needs a person"]),
        tools: [pay.tool],
      },
    );
    const first = harness.stream(`Pay my friend ${FRIEND_IBAN}`);
    const before = await drain(first);
    const waiting = await first.result;
    expect(waiting.waiting?.kind).toBe("approval");
    const requested = before.find((part) => part.type === "approval-requested");
    expect(requested).toMatchObject({ toolCallId: "c1", toolName: "pay", input: { to: FRIEND_IBAN, amount: 10 }, reason: "a payment needs a person" });
    expect(before.at(-1)).toEqual({ type: "result", result: waiting });

    await harness.approve(waiting.runId, (requested as { approvalId: string }).approvalId, { approver: "ops@example.com" });
    const resumed = harness.resumeStream(waiting.runId);
    const after = await drain(resumed);
    const result = await resumed.result;
    expect(result.outcome?.status).toBe("completed");
    expect(pay.calls).toHaveLength(1);

    const all = await journaledParts(journal, waiting.runId);
    // The replay is the first stream's durable parts, exactly; the live part follows on.
    expect(durableOf(after)).toEqual(all);
    expect(durableOf(after).slice(0, durableOf(before).length)).toEqual(durableOf(before));
    expect(all.slice(durableOf(before).length).map((part) => part.type)).toEqual(["approval-decided", "tool-result", "model-response", "run-ended"]);
    // The resumed model call's deltas came live, after the replay, adding up to its response.
    const lastResponse = all.findLast((part) => part.type === "model-response");
    expect(textByTurn(after).get((lastResponse as { turnId: string }).turnId)).toBe("Paid your friend ten euros.");
    const firstDelta = after.findIndex((part) => part.type === "text-delta");
    expect(after.findIndex((part) => part.type === "approval-decided")).toBeLessThan(firstDelta);
  });

  it("reattaches to a run a stream of this harness drives: replay, then the same live parts, until that stream's call returns", async () => {
    const lookup = gatedLookup();
    const { harness, journal } = rig([callTools([{ name: "lookup", args: { city: "Oslo" }, id: "call_oslo" }]), say("Sunny in Oslo.")], {
      tools: [lookup.tool],
    });
    const driving = harness.stream("Weather in Oslo?");
    const driverParts = drain(driving);
    await lookup.entered;
    // A page reloaded while the tool runs: it asks for the run again.
    const reattached = harness.resumeStream(driving.runId);
    expect(() => harness.resumeStream(driving.runId, { input: "hurry" })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    const reattachedParts = drain(reattached);
    lookup.release();
    const [first, second] = await Promise.all([driverParts, reattachedParts]);
    const result = await driving.result;
    expect(await reattached.result).toBe(result);
    const all = await journaledParts(journal, driving.runId);
    expect(durableOf(first)).toEqual(all);
    expect(durableOf(second)).toEqual(all);
    // Attached after turn 1's response: it saw turn 2's deltas live, not turn 1's.
    const [turn1, turn2] = all.filter((part) => part.type === "model-response") as { turnId: string; text: string }[];
    expect(textByTurn(second).has(turn1!.turnId)).toBe(false);
    expect(textByTurn(second).get(turn2!.turnId)).toBe(turn2!.text);
    expect(second.at(-1)).toEqual({ type: "result", result });
  });

  it("resumes a finished run as resume does: a full replay and its outcome, nothing asked", async () => {
    const { harness, journal, model } = rig([say("done")]);
    const { runId } = await harness.start("Finish.");
    const parts = await drain(harness.resumeStream(runId));
    expect(durableOf(parts)).toEqual(await journaledParts(journal, runId));
    expect(parts.at(-1)).toMatchObject({ type: "result", result: { outcome: { status: "completed" } } });
    expect(model.calls).toHaveLength(1);
  });

  it("ends with the RUN_NOT_FOUND error of an unknown run", async () => {
    const { harness } = rig([]);
    const parts = await drain(harness.resumeStream("run_missing"));
    expect(parts).toEqual([{ type: "error", error: expect.objectContaining({ code: "RUN_NOT_FOUND" }) }]);
  });
});
