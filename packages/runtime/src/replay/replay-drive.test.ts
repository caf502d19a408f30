// What the replay drive gives the harness again: a person's close as the person said it, and a
// delegation only when the caller gave it (a planner's is code, planned again).
import { createMemoryJournal } from "@yoke/journal";
import { YokeError } from "@yoke/protocol";
import { callTools, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { TENANT, rig } from "../__fixtures__/harness-fixtures.js";
import { replay } from "./replay.js";

const RUN = "run_drive";
const refusal = { content: [{ type: "refusal" as const, text: "I cannot do that." }], stopReason: "refusal" as const };

async function divergenceOf(promise: Promise<unknown>): Promise<Record<string, unknown>> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!YokeError.hasCode(error, "REPLAY_DIVERGED")) throw new Error(`expected REPLAY_DIVERGED, got ${String(error)}`);
  return error.details as Record<string, unknown>;
}

describe("the replay drive", () => {
  for (const close of ["out of scope", "", "nested (closed: parentheses)"]) {
    it(`a refusal closed with ${JSON.stringify(close)} is closed again with the same words, once`, async () => {
      const journal = createMemoryJournal();
      const { harness } = rig([refusal], { journal });
      await harness.start("Do it.", { runId: RUN });
      const closed = await harness.resume(RUN, { close });
      expect(closed.outcome?.status).toBe("refused");
      const report = await replay({ journal, tenantId: TENANT, runId: RUN }, harness);
      expect(report.status).toBe("finished");
    });
  }

  const planned = { grants: [{ grantId: "echo-plan", tools: ["echo"], max: 1 }] };
  it("a planner's delegation is planned again by the harness replayed, never given to start", async () => {
    const journal = createMemoryJournal();
    const { harness } = rig([callTools([{ name: "echo", args: { text: "hi" } }]), say("done")], { journal, planDelegation: () => planned });
    expect((await harness.start("Echo hi.", { runId: RUN })).outcome?.status).toBe("completed");
    expect((await replay({ journal, tenantId: TENANT, runId: RUN }, harness)).status).toBe("finished");
    // Today's planner proposes another grant: the run would pin another delegation, and replay says so.
    const { harness: changed } = rig([], { planDelegation: () => ({ grants: [{ grantId: "echo-twice", tools: ["echo"], max: 2 }] }) });
    expect(await divergenceOf(replay({ journal, tenantId: TENANT, runId: RUN }, changed))).toMatchObject({ type: "run.delegated" });
  });

  it("a delegation the caller gave is given again, whatever today's planner would propose", async () => {
    const journal = createMemoryJournal();
    const { harness } = rig([callTools([{ name: "echo", args: { text: "hi" } }]), say("done")], { journal });
    const given = { grants: [{ grantId: "echo-given", tools: ["echo"], max: 1 }] };
    expect((await harness.start("Echo hi.", { runId: RUN, delegation: given })).outcome?.status).toBe("completed");
    const { harness: planning } = rig([], { planDelegation: () => planned });
    expect((await replay({ journal, tenantId: TENANT, runId: RUN }, planning)).status).toBe("finished");
  });
});
