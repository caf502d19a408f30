// A policy engine is the caller's code: a decision the journal's own reader would refuse (a
// revision that is not a SHA-256 digest, an empty rule id) fails the decision typed, before
// anything is journaled for the call, and the run stays readable and resumable.
import { YokeError, readYokeEvents, type PolicyEngineV1 } from "@yoke/protocol";
import { callTools, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { TENANT, rejectionOf } from "./__fixtures__/harness-fixtures.js";
import { POLICY_V1, noteTool, policyRig } from "./__fixtures__/policy-fixtures.js";

const RUN = "run_malformed_decision";

function engineReturning(decision: () => { effect: "allow"; ruleId: string; policyRevision: string; reason: string }): PolicyEngineV1 {
  return { specificationVersion: "v1", revision: POLICY_V1, decide: decision };
}

describe("a malformed policy decision", () => {
  it.each([
    ["a revision that is not a digest", { ruleId: "notes-ok", policyRevision: "v1" }, "policyRevision"],
    ["an empty rule id", { ruleId: "", policyRevision: POLICY_V1 }, "ruleId"],
  ])("%s is POLICY_INVALID naming the field; nothing is admitted, and the journal reads back", async (_name, fields, field) => {
    let broken = true;
    const engine = engineReturning(() =>
      broken ? { effect: "allow", reason: "fine", ...fields } : { effect: "allow", ruleId: "notes-ok", policyRevision: POLICY_V1, reason: "fine" },
    );
    const note = noteTool();
    const { harness, journal } = policyRig(
      [callTools([{ name: "note", args: { text: "hi" } }]), callTools([{ name: "note", args: { text: "hi" } }]), say("noted")],
      { policy: engine, tools: [note.tool] },
    );
    const error = await rejectionOf(harness.start("note hi", { runId: RUN }));
    expect(YokeError.hasCode(error, "POLICY_INVALID")).toBe(true);
    expect((error as YokeError).message).toContain(field);
    expect(((error as YokeError).details as { issues: { path: string[] }[] }).issues[0]!.path).toEqual([field]);

    const types: string[] = [];
    for await (const event of readYokeEvents(journal, { tenantId: TENANT, runId: RUN })) types.push(event.type);
    // The response and its admissions are one transaction: none of it is journaled, and the resume asks again.
    expect(types.slice(-2)).toEqual(["model.requested", "run.failed"]);
    expect(types).not.toContain("action.admitted");
    expect(note.calls).toEqual([]);

    broken = false;
    const done = await harness.resume(RUN);
    const after: string[] = [];
    for await (const event of readYokeEvents(journal, { tenantId: TENANT, runId: RUN })) after.push(event.type);
    expect(after.slice(types.length)).toContain("action.admitted");
    expect(done.outcome?.status).toBe("completed");
    expect(note.calls).toEqual(["hi"]);
  });
});
