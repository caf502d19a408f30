// Tenant isolation: two tenants share one SQLite journal file, one artifact store, one
// idempotency store, one capability broker and one effect ledger, as a multi-tenant
// deployment does. Tenant
// "globex" tries to read, decide, verify or undo every record of tenant "acme": 0 successes,
// each attempt a typed error (TENANT_MISMATCH, or RUN_NOT_FOUND where the API cannot tell a
// run of another tenant from no run at all, which is what keeps a run's existence private).
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFileArtifactStore, createSqliteIdempotencyStore, createSqliteJournal } from "@yoke/journal";
import { createCapabilityBroker } from "@yoke/policy/capabilities";
import { YokeError, sequentialIdSource, steppingClock, type PolicyEngineV1, type YokeErrorCode } from "@yoke/protocol";
import { createHarness, defineTool, reconstructRequest } from "@yoke/runtime";
import { callTools, createEffectLedger, createScriptedModel, say } from "@yoke/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";

const root = mkdtempSync(join(tmpdir(), "yoke-tenant-isolation-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const ACME = "acme";
const GLOBEX = "globex";

/** Every payment needs a person's approval; reads are allowed. */
const approvals: PolicyEngineV1 = {
  specificationVersion: "v1",
  revision: createHash("sha256").update("tenant-isolation policy").digest("hex"),
  decide: (tuple) =>
    tuple.sideEffect === "none"
      ? { effect: "allow", ruleId: "reads", policyRevision: approvals.revision, reason: "reads are allowed" }
      : { effect: "require_approval", ruleId: "payments", policyRevision: approvals.revision, reason: "a person approves payments" },
};

/** One attempt of `globex` on an `acme` record: what it came to. */
type Attempt = { readonly what: string; readonly code: YokeErrorCode | "ok" };

async function attempt(what: string, action: () => Promise<unknown> | unknown): Promise<Attempt> {
  try {
    await action();
    return { what, code: "ok" };
  } catch (error) {
    if (!YokeError.isInstance(error)) throw error;
    return { what, code: error.code };
  }
}

async function drain(events: AsyncIterable<unknown>): Promise<number> {
  let count = 0;
  for await (const _ of events) count++;
  return count;
}

describe("tenant isolation", () => {
  it("journal and approvals: another tenant's harness on the same SQLite file gets RUN_NOT_FOUND for every read, resume and decision", async () => {
    const filename = join(root, "shared.sqlite");
    const journal = await createSqliteJournal({ filename });
    const pay = defineTool({
      name: "pay",
      description: "Pays an invoice.",
      input: z.object({ invoice: z.string() }),
      sideEffect: "irreversible",
      execute: async ({ invoice }) => `paid ${invoice}`,
    });
    const harnessFor = (tenantId: string) =>
      createHarness({
        journal,
        provider: createScriptedModel([callTools([{ name: "pay", args: { invoice: "inv-7" } }]), say("paid")]),
        tools: [pay],
        tenantId,
        policy: approvals,
        principal: { id: `${tenantId}-user` },
        clock: steppingClock(1_000, 1),
        ids: sequentialIdSource(),
      });
    const acme = harnessFor(ACME);
    const parked = await acme.start("Pay invoice inv-7.", { runId: "run_acme" });
    expect(parked.waiting?.kind).toBe("approval");
    const approvalId = parked.waiting!.approvals[0]!.approvalId;

    const globex = harnessFor(GLOBEX);
    const attempts = [
      await attempt("getState", () => globex.getState("run_acme")),
      await attempt("events", () => drain(globex.events("run_acme"))),
      await attempt("resume", () => globex.resume("run_acme")),
      await attempt("approve", () => globex.approve("run_acme", approvalId, { approver: "mallory" })),
      await attempt("deny", () => globex.deny("run_acme", approvalId, { approver: "mallory", reason: "sabotage" })),
    ];
    expect(attempts.filter((one) => one.code === "ok")).toEqual([]);
    expect(attempts.map((one) => one.code)).toEqual(["RUN_NOT_FOUND", "RUN_NOT_FOUND", "RUN_NOT_FOUND", "RUN_NOT_FOUND", "RUN_NOT_FOUND"]);
    // The store itself answers another tenant's scope with nothing: no head, no events.
    expect(await journal.head({ tenantId: GLOBEX, runId: "run_acme" })).toBeNull();
    expect(await drain(journal.read({ tenantId: GLOBEX, runId: "run_acme" }))).toBe(0);
    // globex starting a run of the same id makes its own run: acme's is untouched.
    await globex.start("Pay invoice inv-7.", { runId: "run_acme" });

    // acme's run still waits on acme's approval: nothing globex did reached it.
    const state = await acme.getState("run_acme");
    expect([...state.approvals.values()].map((approval) => approval.status)).toEqual(["requested"]);
    const types = [];
    for await (const event of acme.events("run_acme")) types.push(event.type);
    expect(types).not.toContain("approval.granted");
    expect(types).not.toContain("approval.denied");
    await journal.close();
  });

  it("artifacts: on one shared file store, another tenant finds none of the first tenant's outputs, even when it produced the same bytes", async () => {
    const journal = await createSqliteJournal({ filename: join(root, "artifacts.sqlite") });
    const artifacts = createFileArtifactStore({ directory: join(root, "artifacts"), fsync: false });
    const payroll = "employee,salary\n".repeat(2_000);
    const dump = defineTool({ name: "dump", description: "Exports the payroll.", input: z.object({}), sideEffect: "none", execute: async () => payroll });
    const harnessFor = (tenantId: string) =>
      createHarness({
        journal,
        provider: createScriptedModel([callTools([{ name: "dump", args: {} }]), say("exported")]),
        tools: [dump],
        tenantId,
        policy: approvals,
        artifacts,
        maxEventOutputBytes: 4_096,
        clock: steppingClock(1_000, 1),
        ids: sequentialIdSource(),
      });
    await harnessFor(ACME).start("Export the payroll.", { runId: "run_payroll" });
    const digest = `sha256:${createHash("sha256").update(payroll).digest("hex")}` as const;
    expect(await artifacts.has({ tenantId: ACME }, digest)).toBe(true);
    const attempts = [
      await attempt("get", () => artifacts.get({ tenantId: GLOBEX }, digest)),
      await attempt("reconstructRequest", () => reconstructRequest(journal, { tenantId: GLOBEX, runId: "run_payroll" }, 2, { artifacts })),
    ];
    expect(attempts.map((one) => one.code)).toEqual(["ARTIFACT_MISSING", "RUN_NOT_FOUND"]);
    expect(await artifacts.has({ tenantId: GLOBEX }, digest)).toBe(false);
    // globex's own run of the same tool stores its own copy; acme's run still reads back whole.
    await harnessFor(GLOBEX).start("Export the payroll.", { runId: "run_payroll" });
    expect(await artifacts.has({ tenantId: GLOBEX }, digest)).toBe(true);
    expect((await reconstructRequest(journal, { tenantId: ACME, runId: "run_payroll" }, 2, { artifacts })).cutOutputs).toHaveLength(1);
    await journal.close();
  });

  it("idempotency records: another tenant claiming the same key never sees, replaces or completes the first tenant's outcome", async () => {
    const store = await createSqliteIdempotencyStore({ filename: join(root, "idempotency.sqlite") });
    const digest = "a".repeat(64);
    expect(await store.claim({ tenantId: ACME, key: "action_1", argumentDigest: digest, now: 1, leaseMs: 1_000 })).toMatchObject({ kind: "claimed" });
    await store.complete({ tenantId: ACME, key: "action_1", argumentDigest: digest, outcome: { status: "succeeded", value: { charged: 4200 } }, now: 2 });
    // The API cannot tell another tenant's key from a fresh one: globex gets a claim in its own namespace, never acme's outcome.
    const other = await store.claim({ tenantId: GLOBEX, key: "action_1", argumentDigest: "b".repeat(64), now: 3, leaseMs: 1_000 });
    expect(other).toEqual({ kind: "claimed", reclaimed: false });
    await store.complete({
      tenantId: GLOBEX,
      key: "action_1",
      argumentDigest: "b".repeat(64),
      outcome: { status: "failed", error: { code: "X", message: "x" } },
      now: 4,
    });
    expect(await store.claim({ tenantId: ACME, key: "action_1", argumentDigest: digest, now: 5, leaseMs: 1_000 })).toEqual({
      kind: "completed",
      outcome: { status: "succeeded", value: { charged: 4200 } },
    });
    await store.close();
  });

  it("capabilities: another tenant's use of a token is TENANT_MISMATCH, and no attenuation moves it to another tenant", async () => {
    const clock = steppingClock(1_000);
    const broker = createCapabilityBroker({ key: "tenant-isolation-key-0123456789abcdef", clock, ids: sequentialIdSource() });
    const root = broker.mint({ tenantId: ACME, resource: "account:*", verbs: ["read", "send"], actionId: null, expiresAt: 60_000 });
    const child = broker.attenuate(root, { resource: "account:42", verbs: ["read"], actionId: "action_1" });
    const uses = [root, child].flatMap((capability) =>
      ["account:42", "account:*", "tool:pay"].flatMap((resource) =>
        ["read", "send"].map((verb) => broker.verify(capability.token, { tenantId: GLOBEX, resource, verb, actionId: "action_1" })),
      ),
    );
    expect(uses.filter((use) => use.ok)).toEqual([]);
    expect(new Set(uses.map((use) => (use.ok ? "ok" : use.code)))).toEqual(new Set(["TENANT_MISMATCH"]));
    const moved = await attempt("attenuate to globex", () => broker.attenuate(root, { tenantId: GLOBEX }));
    expect(moved.code).toBe("CAPABILITY_ESCALATION");
  });

  it("effect ledger: another tenant's view cannot read or undo an effect, and sees none of the first tenant's entries", async () => {
    const ledger = createEffectLedger(join(root, "ledger.jsonl"));
    const acme = ledger.forTenant(ACME);
    const globex = ledger.forTenant(GLOBEX);
    acme.apply({ resource: "card:acme-1", key: "action_1", value: 4200 });
    const attempts = [
      await attempt("applied", () => globex.applied("action_1")),
      await attempt("undo", () => globex.undo("action_1")),
      await attempt("apply with dedupe", () => globex.apply({ resource: "card:acme-1", key: "action_1", value: 1, dedupe: true })),
    ];
    expect(attempts.map((one) => one.code)).toEqual(["TENANT_MISMATCH", "TENANT_MISMATCH", "TENANT_MISMATCH"]);
    expect(globex.entries()).toEqual([]);
    expect(globex.netState()).toEqual({});
    expect(acme.applied("action_1")).toBe(true);
    expect(acme.netState()).toEqual({ "card:acme-1": 4200 });
  });
});
