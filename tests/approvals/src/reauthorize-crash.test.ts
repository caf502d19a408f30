// Policy is asked again for every attempt (issue 33, item 2), across a real kill: a process runs
// an idempotent call its policy allows and is SIGKILLed after dispatch (action.admitted durable,
// the handler running). A fresh process resumes with a policy that now denies it: the action is
// reconciled (retry_safe) and its attempt 2 is put to the policy in force now, which refuses it;
// the call never runs again, and the refusal is journaled with both policy revisions. With a new
// policy that still allows it, attempt 2 runs once, its lease naming the new revision.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createSqliteJournal } from "@yoke/journal";
import { parseYokeEvent, type YokeEvent } from "@yoke/protocol";
import { createEffectLedger } from "@yoke/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { ScriptProcess } from "@yoke/testkit/crash";

const script = fileURLToPath(new URL("./reauthorize-scenario.ts", import.meta.url));
const scope = { tenantId: "tenant_reauthorize", runId: "run_sync" };
const V1 = "1".repeat(64);
const V2 = "2".repeat(64);
const root = mkdtempSync(join(tmpdir(), "yoke-reauthorize-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let trial = 0;

async function launch(dir: string, mode: "start" | "resume", policy: "allow-v1" | "allow-v2" | "deny-v2"): Promise<ScriptProcess> {
  const child = new ScriptProcess(`${mode} ${policy}`, script, ["--dir", dir, "--mode", mode, "--policy", policy], "yoke-approvals-compile-cache");
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

/** Starts the run under policy v1 (allow), waits until the call is dispatched, and SIGKILLs the process. */
async function dispatchedAndKilled(dir: string): Promise<void> {
  const starter = await launch(dir, "start", "allow-v1");
  expect(await starter.line("TOOL_STARTED "), starter.transcript()).toBe("TOOL_STARTED 1");
  expect(starter.count("POLICY_ASKED")).toBe(1);
  expect((await starter.kill()).signal).toBe("SIGKILL");
}

describe("a resumed attempt is decided under the policy in force at resume", () => {
  it("killed after dispatch, resumed under a policy that now denies: attempt 2 is refused (POLICY_CHANGED, both revisions), never run", async () => {
    const dir = join(root, `trial-${++trial}`);
    await dispatchedAndKilled(dir);
    const resumer = await launch(dir, "resume", "deny-v2");
    const first = await resumer.settled("DONE ", "FAILED ", "TOOL_STARTED ");
    // A dispatched attempt waits for `finish`: stop it rather than wait, the assertion below names what it did.
    if (!first.startsWith("DONE ")) await resumer.kill();
    expect(first, resumer.transcript()).toBe('DONE {"outcome":"completed"}');
    expect((await resumer.ended).code, resumer.transcript()).toBe(0);
    expect(resumer.has("TOOL_STARTED"), resumer.transcript()).toBe(false);
    // The new policy was asked once, for attempt 2; the model was asked once more, with the refusal.
    expect(resumer.count("POLICY_ASKED")).toBe(1);
    expect(resumer.count("MODEL_CALL")).toBe(1);

    expect(createEffectLedger(join(dir, "ledger.jsonl")).entries()).toEqual([]);
    const { events, verification } = await journalOf(dir);
    expect(verification).toMatchObject({ ok: true });
    const actions = events.filter((event) => event.type.startsWith("action."));
    expect(actions.map((event) => event.type)).toEqual(["action.admitted", "action.uncertain", "action.reconciled", "action.leased", "action.failed"]);
    expect(actions[1]?.data).toMatchObject({ reason: expect.stringContaining("stopped after dispatch") });
    expect(actions[2]?.data).toMatchObject({ verdict: "retry_safe" });
    expect(actions[3]?.data).toMatchObject({ attempt: 2 });
    expect(actions[4]?.data).toMatchObject({
      attemptId: actions[3]?.type === "action.leased" ? actions[3].data.attemptId : "?",
      dispatched: false,
      retryable: false,
      policy: { effect: "deny", ruleId: "syncs-frozen", policyRevision: V2 },
      previousPolicy: { effect: "allow", ruleId: "syncs-allowed", policyRevision: V1 },
      result: { error: { code: "POLICY_CHANGED" } },
    });
  }, 120_000);

  it("killed after dispatch, resumed under a new policy that still allows it: attempt 2 runs once, its lease naming the new revision", async () => {
    const dir = join(root, `trial-${++trial}`);
    await dispatchedAndKilled(dir);
    const resumer = await launch(dir, "resume", "allow-v2");
    expect(await resumer.line("TOOL_STARTED "), resumer.transcript()).toBe("TOOL_STARTED 2");
    resumer.send("finish");
    expect(await resumer.line("DONE "), resumer.transcript()).toBe('DONE {"outcome":"completed"}');
    expect((await resumer.ended).code, resumer.transcript()).toBe(0);
    expect(resumer.count("POLICY_ASKED")).toBe(1);

    expect(
      createEffectLedger(join(dir, "ledger.jsonl"))
        .entries()
        .filter((entry) => entry.op === "apply"),
    ).toHaveLength(1);
    const { events, verification } = await journalOf(dir);
    expect(verification).toMatchObject({ ok: true });
    const leased = events.find((event) => event.type === "action.leased");
    expect(leased?.data).toMatchObject({ attempt: 2, rule: "syncs-allowed-v2", policy: { effect: "allow", policyRevision: V2 } });
    expect(events.find((event) => event.type === "action.committed")).toBeDefined();
  }, 120_000);
});
