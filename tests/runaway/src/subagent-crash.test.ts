// A child subagent survives a real kill: a parent spawns a child whose tool call is running
// when the process is SIGKILLed. A fresh process resumes the parent; its spawn action (the
// idempotent spawn_subagent) finds the child by the run id derived from the action id and
// resumes it, and the child's typed result becomes the parent action's output. One child run,
// both journals verify, every reservation in both is settled.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteJournal } from "@yoke/journal";
import { parseYokeEvent, type YokeEvent } from "@yoke/protocol";
import { afterAll, describe, expect, it } from "vitest";
import { openReservationsOf } from "./runaway-fixtures.ts";
import { SubagentProcess } from "./subagent-process.ts";

const TENANT = "tenant_runaway";
const root = mkdtempSync(join(tmpdir(), "yoke-subagent-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function launch(dir: string, mode: "start" | "resume"): Promise<SubagentProcess> {
  const child = new SubagentProcess(mode, dir, mode);
  expect(await child.line("READY"), child.transcript()).toBe("READY");
  child.send("go");
  return child;
}

async function streamOf(dir: string, runId: string): Promise<{ events: YokeEvent[]; verification: unknown }> {
  const journal = await createSqliteJournal({ filename: join(dir, "journal.sqlite"), readOnly: true });
  try {
    const events: YokeEvent[] = [];
    for await (const event of journal.read({ tenantId: TENANT, runId })) events.push(parseYokeEvent(event));
    return { events, verification: await journal.verify({ tenantId: TENANT, runId }) };
  } finally {
    await journal.close();
  }
}

describe("a child subagent killed mid-run", () => {
  it("SIGKILL while the child's tool runs; a fresh process resumes parent and child, and the child's result is the spawn's output", async () => {
    const dir = join(root, "trial-1");
    const starter = await launch(dir, "start");
    expect(await starter.line("HOLDING"), starter.transcript()).toBe("HOLDING");
    expect((await starter.kill()).signal).toBe("SIGKILL");

    const resumer = await launch(dir, "resume");
    const done = await resumer.line("DONE ");
    expect(JSON.parse(done.slice("DONE ".length)), resumer.transcript()).toMatchObject({ outcome: { status: "completed" } });
    expect((await resumer.ended).code, resumer.transcript()).toBe(0);
    expect(resumer.count("CHILD_POKE")).toBe(1);

    const parent = await streamOf(dir, "run_parent");
    expect(parent.verification).toMatchObject({ ok: true });
    const spawns = parent.events.flatMap((event) => (event.type === "budget.reserved" && event.data.attribution.kind === "subagent" ? [event.data] : []));
    // The cut spawn attempt and its retry: two reservations, one child.
    expect(new Set(spawns.map((data) => data.attribution.childRunId)).size).toBe(1);
    const childRunId = spawns[0]!.attribution.childRunId!;
    const child = await streamOf(dir, childRunId);
    expect(child.verification).toMatchObject({ ok: true });
    expect(child.events.filter((event) => event.type === "run.started")).toHaveLength(1);
    const started = child.events[0]!;
    expect(started.type === "run.started" && started.data.parent).toMatchObject({ runId: "run_parent", actionId: spawns[0]!.attribution.actionId });
    expect(child.events.at(-1)?.type).toBe("run.completed");
    const committed = parent.events.find((event) => event.type === "action.committed");
    expect(committed?.type === "action.committed" && committed.data.result.output).toMatchObject({
      childRunId,
      result: { claims: [{ claim: "item 7 is poked" }] },
    });
    expect(openReservationsOf(parent.events)).toEqual([]);
    expect(openReservationsOf(child.events)).toEqual([]);
  }, 120_000);
});
