// Budget exhaustion survives a real kill: a process runs a model that never stops under a
// budget of tool operations and is SIGKILLed while its last operation that fits is running. A
// fresh process resumes on the same SQLite file: the ledger is rebuilt from the journal, the
// cut attempt is charged (it was executing: it may have run) and its retry does not fit, so
// the run ends budget_exhausted with no more operations than the budget, nothing left open.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteJournal } from "@yoke/journal";
import { parseYokeEvent, type YokeEvent } from "@yoke/protocol";
import { afterAll, describe, expect, it } from "vitest";
import { chargedOf, openReservationsOf } from "./runaway-fixtures.ts";
import { RunawayProcess } from "./runaway-process.ts";

const scope = { tenantId: "tenant_runaway", runId: "run_runaway" };
const root = mkdtempSync(join(tmpdir(), "yoke-runaway-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let trial = 0;

async function launch(dir: string, mode: "start" | "resume", toolOps: number, holdAt?: number): Promise<RunawayProcess> {
  const child = new RunawayProcess(mode, dir, mode, toolOps, holdAt);
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

describe("a runaway run killed mid-operation resumes through budget exhaustion", () => {
  it("SIGKILL during the last operation that fits; a fresh process ends the run budget_exhausted within the budget", async () => {
    const dir = join(root, `trial-${++trial}`);
    const starter = await launch(dir, "start", 3, 3);
    expect(await starter.line("HOLDING "), starter.transcript()).toBe("HOLDING 3");
    expect((await starter.kill()).signal).toBe("SIGKILL");

    const resumer = await launch(dir, "resume", 3);
    const done = await resumer.line("DONE ");
    expect(JSON.parse(done.slice("DONE ".length)), resumer.transcript()).toMatchObject({
      outcome: { status: "budget_exhausted", budget: "tool_ops", limit: 3 },
    });
    expect((await resumer.ended).code, resumer.transcript()).toBe(0);
    // The resumed process ran no operation: the cut one was charged, its retry did not fit.
    expect(resumer.count("TOOL_STARTED")).toBe(0);

    const { events, verification } = await journalOf(dir);
    expect(verification).toMatchObject({ ok: true });
    expect(chargedOf(events).tool_ops).toBe(3);
    expect(openReservationsOf(events)).toEqual([]);
    expect(events.filter((event) => event.type === "action.uncertain")).toHaveLength(1);
    const failed = events.flatMap((event) => (event.type === "action.failed" ? [event.data.result?.error?.code] : []));
    expect(failed).toContain("BUDGET_EXHAUSTED");
    expect(events.at(-1)?.type).toBe("run.completed");
  }, 120_000);

  it("SIGKILL with room left: the resumed run keeps counting from the journal, not from zero", async () => {
    const dir = join(root, `trial-${++trial}`);
    const starter = await launch(dir, "start", 5, 2);
    expect(await starter.line("HOLDING "), starter.transcript()).toBe("HOLDING 2");
    expect((await starter.kill()).signal).toBe("SIGKILL");

    const resumer = await launch(dir, "resume", 5);
    const done = await resumer.line("DONE ");
    expect(JSON.parse(done.slice("DONE ".length)), resumer.transcript()).toMatchObject({
      outcome: { status: "budget_exhausted", budget: "tool_ops", limit: 5 },
    });
    // Two operations were charged before the kill (one of them cut): three are left for the fresh process.
    expect(resumer.count("TOOL_STARTED")).toBe(3);
    const { events, verification } = await journalOf(dir);
    expect(verification).toMatchObject({ ok: true });
    expect(chargedOf(events).tool_ops).toBe(5);
    expect(openReservationsOf(events)).toEqual([]);
  }, 120_000);
});
