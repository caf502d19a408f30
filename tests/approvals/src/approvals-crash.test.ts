// A run parked for approval survives a real kill (issue 14): one process starts the run, the
// policy parks its irreversible charge, and the process is SIGKILLed while the run waits. A
// fresh process opens the same SQLite file, approves and resumes: the charge runs exactly once.
// The second case also kills the approving process in the middle of the charge; a third
// process reconciles it (not applied) and runs it once.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteJournal } from "@yoke/journal";
import { parseYokeEvent, type YokeEvent } from "@yoke/protocol";
import { createEffectLedger } from "@yoke/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { ScenarioProcess, type Mode } from "./approval-process.ts";

const scope = { tenantId: "tenant_approvals", runId: "run_parked" };
const root = mkdtempSync(join(tmpdir(), "yoke-approvals-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let trial = 0;

async function launch(dir: string, mode: Mode): Promise<ScenarioProcess> {
  const child = new ScenarioProcess(mode, dir, mode);
  expect(await child.line("READY"), child.transcript()).toBe("READY");
  child.send("go");
  return child;
}

async function journalOf(dir: string): Promise<{ events: YokeEvent[]; verification: unknown }> {
  const journal = await createSqliteJournal({ filename: join(dir, "journal.sqlite"), readOnly: true });
  try {
    const events: YokeEvent[] = [];
    for await (const event of journal.read(scope)) events.push(parseYokeEvent(event));
    return { events, verification: await journal.verify(scope) };
  } finally {
    await journal.close();
  }
}

/** Starts the run in a process, waits until it is parked, and SIGKILLs the process. */
async function parkedAndKilled(dir: string): Promise<string> {
  const starter = await launch(dir, "start");
  const waiting = await starter.line("WAITING ");
  expect(waiting, starter.transcript()).toMatch(/^WAITING approval_\S+$/);
  expect(starter.has("TOOL_STARTED"), starter.transcript()).toBe(false);
  expect((await starter.kill()).signal).toBe("SIGKILL");
  return waiting.split(" ")[1]!;
}

describe("a run parked for approval survives kill and resume", () => {
  it("a fresh process approves and resumes on the same SQLite file; the charge runs exactly once", async () => {
    const dir = join(root, `trial-${++trial}`);
    const approvalId = await parkedAndKilled(dir);
    const approver = await launch(dir, "approve-resume");
    expect(await approver.line("APPROVED "), approver.transcript()).toBe(`APPROVED ${approvalId}`);
    expect(await approver.line("TOOL_STARTED "), approver.transcript()).toMatch(/^TOOL_STARTED /);
    approver.send("finish");
    expect(await approver.line("DONE "), approver.transcript()).toBe('DONE {"outcome":"completed"}');
    expect((await approver.ended).code, approver.transcript()).toBe(0);
    // The model was asked once for the call (by the first process) and once after it ran.
    expect(approver.count("MODEL_CALL")).toBe(1);

    const ledger = createEffectLedger(join(dir, "ledger.jsonl"));
    expect(ledger.entries().filter((entry) => entry.op === "apply")).toHaveLength(1);
    const { events, verification } = await journalOf(dir);
    expect(verification).toMatchObject({ ok: true });
    const types = events.map((event) => event.type);
    expect(types.filter((type) => type === "action.approval_requested")).toHaveLength(1);
    expect(types.filter((type) => type === "approval.granted")).toHaveLength(1);
    expect(types.filter((type) => type === "action.executing")).toHaveLength(1);
    const authorized = events.find((event) => event.type === "action.authorized");
    expect(authorized?.type === "action.authorized" && authorized.data.approvalId).toBe(approvalId);
    const started = events.find((event) => event.type === "run.started");
    expect(started?.type === "run.started" && started.data.principal).toEqual({ id: "user_7", authenticated: true, scopes: [] });
  }, 120_000);

  it("the approving process is killed mid-charge too; a third process reconciles and charges once", async () => {
    const dir = join(root, `trial-${++trial}`);
    await parkedAndKilled(dir);
    const approver = await launch(dir, "approve-resume");
    expect(await approver.line("TOOL_STARTED "), approver.transcript()).toMatch(/^TOOL_STARTED /);
    expect((await approver.kill()).signal).toBe("SIGKILL");
    const resumer = await launch(dir, "resume");
    expect(await resumer.line("TOOL_STARTED "), resumer.transcript()).toMatch(/^TOOL_STARTED /);
    resumer.send("finish");
    expect(await resumer.line("DONE "), resumer.transcript()).toBe('DONE {"outcome":"completed"}');
    expect((await resumer.ended).code, resumer.transcript()).toBe(0);

    expect(
      createEffectLedger(join(dir, "ledger.jsonl"))
        .entries()
        .filter((entry) => entry.op === "apply"),
    ).toHaveLength(1);
    const { events, verification } = await journalOf(dir);
    expect(verification).toMatchObject({ ok: true });
    expect(events.filter((event) => event.type === "approval.granted")).toHaveLength(1);
    // The approval authorized the action once; the second attempt came from reconciliation, not a second approval.
    expect(events.filter((event) => event.type === "action.authorized")).toHaveLength(1);
    expect(events.find((event) => event.type === "action.reconciled")?.data).toMatchObject({ verdict: "not_applied" });
  }, 120_000);
});
