// `yoke approve` / `yoke deny` through the real binary on a real SQLite file: a run a policy
// parked is decided from the shell, journaled as harness.approve / harness.deny would, and the
// run moves on when its harness resumes it. Refusals are typed and exit with their codes.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteJournal } from "@yoke/journal";
import { type PolicyEngineV1, steppingClock, ulidIdSource } from "@yoke/protocol";
import { createHarness, defineTool } from "@yoke/runtime";
import { callTools, createScriptedModel, say } from "@yoke/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { runYoke } from "./support/run-yoke.js";

const TENANT = "tenant_decide";
const REVISION = "d".repeat(64);
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const engine: PolicyEngineV1 = {
  specificationVersion: "v1",
  revision: REVISION,
  decide: () => ({ effect: "require_approval", ruleId: "notes-need-a-person", policyRevision: REVISION, reason: "every note is checked" }),
};

/** A harness over `file` whose calls wait for a person; `posted` counts the notes really posted. `resuming`: the model only answers. */
async function rig(file: string, resuming = false) {
  const journal = await createSqliteJournal({ filename: file });
  const posted: string[] = [];
  const clock = steppingClock(Date.now(), 1);
  const harness = createHarness({
    journal,
    provider: createScriptedModel(resuming ? [say("Done.")] : [callTools([{ name: "post_note", args: { text: "hello" }, id: "call_note" }])]),
    tenantId: TENANT,
    clock,
    ids: ulidIdSource({ clock, random: () => 0.5 }),
    policy: engine,
    tools: [
      defineTool({
        name: "post_note",
        description: "Post a note.",
        input: z.object({ text: z.string() }),
        sideEffect: "idempotent",
        execute: async ({ text }) => {
          posted.push(text);
          return "posted";
        },
      }),
    ],
  });
  return { journal, harness, posted };
}

async function parkedRun(runId: string) {
  const dir = mkdtempSync(join(tmpdir(), "yoke-cli-decide-"));
  dirs.push(dir);
  const file = join(dir, "runs.sqlite");
  const { journal, harness } = await rig(file);
  const result = await harness.start("Post hello.", { runId });
  await journal.close();
  if (result.waiting?.kind !== "approval") throw new Error("the run did not park");
  return { file, approvalId: result.waiting.approvals[0]!.approvalId };
}

describe("yoke approve / yoke deny", () => {
  it("approve: journals the grant; the harness's resume posts the note once", async () => {
    const { file, approvalId } = await parkedRun("run_approve");
    const approved = await runYoke(["approve", "run_approve", approvalId, "--by", "ops@example.test", "--journal", file]);
    expect(approved.stderr).toBe("");
    expect(approved.code).toBe(0);
    expect(approved.stdout).toBe(`approval ${approvalId} of run run_approve: granted by ops@example.test; the run moves on when it is resumed\n`);
    const again = await runYoke(["approve", "run_approve", approvalId, "--by", "ops@example.test", "--journal", file, "--json"]);
    expect(again.code).toBe(3);
    expect(again.stderr).toContain("APPROVAL_NOT_FOUND");
    const { journal, harness, posted } = await rig(file, true);
    const done = await harness.resume("run_approve");
    expect(done.outcome?.status).toBe("completed");
    expect(posted).toEqual(["hello"]);
    const shown = await runYoke(["show", "run_approve", "--journal", file]);
    expect(shown.stdout).toContain(`approval ${approvalId} for `);
    expect(shown.stdout).toContain(": granted by ops@example.test");
    await journal.close();
  });

  it("deny: journals the reason; the note is never posted", async () => {
    const { file, approvalId } = await parkedRun("run_deny");
    const denied = await runYoke(["deny", "run_deny", approvalId, "--by", "ops@example.test", "--reason", "not today", "--journal", file, "--json"]);
    expect(denied.code).toBe(0);
    expect(JSON.parse(denied.stdout)).toMatchObject({ tenantId: TENANT, runId: "run_deny", approvalId, status: "denied" });
    const { journal, harness, posted } = await rig(file, true);
    expect((await harness.resume("run_deny")).outcome?.status).toBe("completed");
    expect(posted).toEqual([]);
    await journal.close();
  });

  it("refuses, typed: no --by, deny without --reason, a run another process owns (nothing journaled)", async () => {
    const { file, approvalId } = await parkedRun("run_refused");
    const noBy = await runYoke(["approve", "run_refused", approvalId, "--journal", file]);
    expect(noBy.code).toBe(2);
    expect(noBy.stderr).toContain("--by NAME is required");
    const noReason = await runYoke(["deny", "run_refused", approvalId, "--by", "ops", "--journal", file]);
    expect(noReason.code).toBe(2);
    const owner = await createSqliteJournal({ filename: file });
    const scope = { tenantId: TENANT, runId: "run_refused" };
    const length = (await owner.head(scope))!.length;
    const lease = await owner.leases!.acquire(scope, { ownerId: "worker-elsewhere", ttlMs: 600_000 });
    const held = await runYoke(["approve", "run_refused", approvalId, "--by", "ops", "--journal", file]);
    expect(held.code).toBe(4);
    expect(held.stderr).toContain("RUN_LEASE_HELD");
    expect((await owner.head(scope))!.length).toBe(length);
    await owner.leases!.release(lease);
    expect((await runYoke(["approve", "run_refused", approvalId, "--by", "ops", "--journal", file])).code).toBe(0);
    await owner.close();
  });
});
