// A person decides an approval without the harness that parked it: the desk holds only the
// journal, writes the same events as harness.approve / harness.deny under the run's lease,
// and the run moves on when its harness resumes. A SQLite file shared by two objects, as an
// approval UI's backend and a worker would share it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteJournal } from "@yoke/journal";
import { YokeError } from "@yoke/protocol";
import { callTools, say } from "@yoke/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { createApprovalDesk } from "./approval-desk.js";
import { TENANT } from "./__fixtures__/harness-fixtures.js";
import { FRIEND_IBAN, functionEngine, manualClock, payTool, policyRig } from "./__fixtures__/policy-fixtures.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function parked() {
  const dir = mkdtempSync(join(tmpdir(), "yoke-desk-"));
  dirs.push(dir);
  const filename = join(dir, "runs.sqlite");
  const journal = await createSqliteJournal({ filename });
  const pay = payTool();
  const clock = manualClock(1_000);
  const { harness } = policyRig([callTools([{ name: "pay", args: { to: FRIEND_IBAN, amount: 10 }, id: "c1" }]), say("paid")], {
    policy: functionEngine(() => ["require_approval", "payments-need-a-person"]),
    tools: [pay.tool],
    journal,
    clock,
    approvalTtlMs: 60_000,
  });
  const result = await harness.start(`Pay my friend ${FRIEND_IBAN}`, { runId: "run_desk" });
  if (result.waiting?.kind !== "approval") throw new Error("the run did not wait for an approval");
  const approvalId = result.waiting.approvals[0]!.approvalId;
  return { filename, journal, harness, pay, clock, approvalId };
}

async function refusal(promise: Promise<unknown>): Promise<YokeError> {
  const caught = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!YokeError.isInstance(caught)) throw new Error(`expected a YokeError, got ${String(caught)}`);
  return caught;
}

describe("createApprovalDesk", () => {
  it("approves on the journal alone; the harness's resume runs the call once", async () => {
    const { filename, journal, harness, pay, clock, approvalId } = await parked();
    const desk = createApprovalDesk({ journal: filename, tenantId: TENANT, clock });
    const granted = await desk.approve("run_desk", approvalId, { approver: "ops@example.test" });
    expect(granted).toMatchObject({ approvalId, status: "granted" });
    await desk.close();
    expect(pay.calls).toHaveLength(0);
    const done = await harness.resume("run_desk");
    expect(done.outcome?.status).toBe("completed");
    expect(pay.calls).toHaveLength(1);
    // A second decision on the same request finds nothing waiting.
    const again = createApprovalDesk({ journal, tenantId: TENANT, clock });
    expect((await refusal(again.approve("run_desk", approvalId, { approver: "ops@example.test" }))).code).toBe("RUN_FINISHED");
    await journal.close();
  });

  it("denies with a reason the model is told; the call never runs", async () => {
    const { journal, harness, pay, clock, approvalId } = await parked();
    const desk = createApprovalDesk({ journal, tenantId: TENANT, clock });
    expect(await desk.deny("run_desk", approvalId, { approver: "ops@example.test", reason: "not this month" })).toMatchObject({ status: "denied" });
    await harness.resume("run_desk");
    expect(pay.calls).toHaveLength(0);
    await journal.close();
  });

  it("refuses, typed: an unknown approval, a request that expired (voided, journaled), a bad approver, another tenant", async () => {
    const { journal, clock, approvalId } = await parked();
    const desk = createApprovalDesk({ journal, tenantId: TENANT, clock });
    expect((await refusal(desk.approve("run_desk", "approval_nope", { approver: "ops" }))).code).toBe("APPROVAL_NOT_FOUND");
    expect((await refusal(desk.approve("run_desk", approvalId, { approver: "" }))).code).toBe("CONFIG_INVALID");
    const elsewhere = createApprovalDesk({ journal, tenantId: "tenant_other", clock });
    expect((await refusal(elsewhere.approve("run_desk", approvalId, { approver: "ops" }))).code).toBe("RUN_NOT_FOUND");
    clock.set(1_000 + 10 * 60 * 60_000);
    expect((await refusal(desk.approve("run_desk", approvalId, { approver: "ops" }))).code).toBe("APPROVAL_EXPIRED");
    expect((await refusal(desk.approve("run_desk", approvalId, { approver: "ops" }))).code).toBe("APPROVAL_NOT_FOUND");
    await journal.close();
  });

  it("never writes past a process that owns the run: a held lease refuses the decision, typed, and nothing is journaled", async () => {
    const { journal, clock, approvalId } = await parked();
    const scope = { tenantId: TENANT, runId: "run_desk" };
    const lengthBefore = (await journal.head(scope))!.length;
    const held = await journal.leases!.acquire(scope, { ownerId: "worker-elsewhere", ttlMs: 600_000 });
    const desk = createApprovalDesk({ journal, tenantId: TENANT, clock });
    const error = await refusal(desk.approve("run_desk", approvalId, { approver: "ops@example.test" }));
    expect(error.code).toBe("RUN_LEASE_HELD");
    expect((await journal.head(scope))!.length).toBe(lengthBefore);
    await journal.leases!.release(held);
    expect(await desk.approve("run_desk", approvalId, { approver: "ops@example.test" })).toMatchObject({ status: "granted" });
    await journal.close();
  });
});
