// Interrupts across real processes (issue 15): a second process appends an interrupt while
// the first runs the run; a run SIGKILLed with an interrupt pending lands it exactly once on
// resume; a run SIGKILLed while its verifier runs re-runs a replay-safe verifier and escalates
// (waits for a person) otherwise. Every wait is on a child's output, never on the clock.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteJournal } from "@yoke/journal";
import { budgetEntriesOf, parseYokeEvent, type YokeEvent } from "@yoke/protocol";
import { afterAll, describe, expect, it } from "vitest";
import { ScenarioProcess, type Mode } from "./interrupt-process.ts";

const scope = { tenantId: "tenant_interrupts", runId: "run_interrupted" };
const INPUT = "Also check the staging database.";
const root = mkdtempSync(join(tmpdir(), "yoke-interrupts-"));
/** Every process launched: one a failed test left waiting (a held model call never answers) is killed at the end. */
const launched: ScenarioProcess[] = [];
afterAll(async () => {
  await Promise.all(launched.map((child) => child.kill()));
  rmSync(root, { recursive: true, force: true });
});
let trial = 0;

async function launch(dir: string, mode: Mode, verifier: "none" | "safe" | "unsafe" = "none", model: "script" | "hang" = "script"): Promise<ScenarioProcess> {
  const child = new ScenarioProcess(mode, dir, mode, verifier, model);
  launched.push(child);
  expect(await child.line("READY"), child.transcript()).toBe("READY");
  child.send("go");
  return child;
}

async function interruptFrom(dir: string, mode: "interrupt-input" | "interrupt-cancel"): Promise<string> {
  const other = await launch(dir, mode);
  const line = await other.line("INTERRUPTED ");
  expect(line, other.transcript()).toMatch(/^INTERRUPTED interrupt_\S+$/);
  expect((await other.ended).code, other.transcript()).toBe(0);
  return line.split(" ")[1]!;
}

async function journalOf(dir: string, runId = scope.runId): Promise<{ events: YokeEvent[]; verification: unknown }> {
  const journal = await createSqliteJournal({ filename: join(dir, "journal.sqlite"), readOnly: true });
  try {
    const events: YokeEvent[] = [];
    for await (const event of journal.read({ ...scope, runId })) events.push(parseYokeEvent(event));
    return { events, verification: await journal.verify({ ...scope, runId }) };
  } finally {
    await journal.close();
  }
}

/** The reservations the run journaled and never settled. */
function unsettled(events: readonly YokeEvent[]): string[] {
  const open = new Set<string>();
  for (const event of events) {
    for (const entry of budgetEntriesOf(event)) {
      if (entry.kind === "reserved") open.add(entry.data.reservationId);
      else open.delete(entry.data.reservationId);
    }
  }
  return [...open];
}

function interruptInputs(events: YokeEvent[]): string[] {
  return events.flatMap((event) =>
    event.type === "input.added" && event.data.source === "interrupt" ? event.data.content.flatMap((part) => (part.type === "text" ? [part.text] : [])) : [],
  );
}

describe("interrupts across processes", () => {
  it("a second process interrupts the running run through the journal; the input lands once, after the tool's result", async () => {
    const dir = join(root, `trial-${++trial}`);
    const owner = await launch(dir, "start");
    expect(await owner.line("TOOL_STARTED"), owner.transcript()).toBe("TOOL_STARTED");
    const interruptId = await interruptFrom(dir, "interrupt-input");
    owner.send("finish");
    expect(await owner.line("DONE "), owner.transcript()).toBe('DONE {"outcome":"completed"}');
    // The model's next request carries the interrupt.
    expect(owner.lines.filter((line) => line.startsWith("MODEL_CALL ")).at(-1)).toBe(`MODEL_CALL ${INPUT}`);
    const { events, verification } = await journalOf(dir);
    expect(verification).toMatchObject({ ok: true });
    expect(interruptInputs(events)).toEqual([INPUT]);
    const landed = events.filter((event) => event.type === "interrupt.landed");
    expect(landed.map((event) => event.type === "interrupt.landed" && event.data.interruptId)).toEqual([interruptId]);
    const committed = events.findIndex((event) => event.type === "action.committed");
    expect(committed).toBeGreaterThan(0);
    expect(committed).toBeLessThan(events.findIndex((event) => event.type === "interrupt.landed"));
    const inbox = await journalOf(dir, `${scope.runId}:interrupts`);
    expect(inbox.events.map((event) => event.type)).toEqual(["run.started", "interrupt.requested"]);
  }, 120_000);

  it("SIGKILLed with an interrupt pending: a fresh process resumes and lands it exactly once", async () => {
    const dir = join(root, `trial-${++trial}`);
    const owner = await launch(dir, "start");
    expect(await owner.line("TOOL_STARTED"), owner.transcript()).toBe("TOOL_STARTED");
    const interruptId = await interruptFrom(dir, "interrupt-input");
    expect((await owner.kill()).signal).toBe("SIGKILL");
    expect(interruptInputs((await journalOf(dir)).events)).toEqual([]);

    const resumer = await launch(dir, "resume");
    expect(await resumer.line("TOOL_STARTED"), resumer.transcript()).toBe("TOOL_STARTED");
    resumer.send("finish");
    expect(await resumer.line("DONE "), resumer.transcript()).toBe('DONE {"outcome":"completed"}');
    expect(resumer.lines.filter((line) => line.startsWith("MODEL_CALL ")).at(-1)).toBe(`MODEL_CALL ${INPUT}`);
    // A second resume of the finished run lands nothing again.
    const again = await launch(dir, "resume");
    expect(await again.line("DONE "), again.transcript()).toBe('DONE {"outcome":"completed"}');
    const { events, verification } = await journalOf(dir);
    expect(verification).toMatchObject({ ok: true });
    expect(interruptInputs(events)).toEqual([INPUT]);
    expect(events.filter((event) => event.type === "interrupt.landed").map((event) => event.type === "interrupt.landed" && event.data.interruptId)).toEqual([
      interruptId,
    ]);
  }, 120_000);

  it("a cancel from another process ends the run cancelled once the tool in flight has its result", async () => {
    const dir = join(root, `trial-${++trial}`);
    const owner = await launch(dir, "start");
    expect(await owner.line("TOOL_STARTED"), owner.transcript()).toBe("TOOL_STARTED");
    await interruptFrom(dir, "interrupt-cancel");
    owner.send("finish");
    expect(await owner.line("DONE "), owner.transcript()).toBe('DONE {"outcome":"cancelled"}');
    const { events } = await journalOf(dir);
    const types = events.map((event) => event.type);
    expect(types.indexOf("action.committed")).toBeLessThan(types.indexOf("interrupt.landed"));
    expect(types.slice(-2)).toEqual(["interrupt.landed", "run.completed"]);
  }, 120_000);

  it("SIGKILLed mid-verifier: a replay-safe verifier runs again on resume; one that is not escalates without running", async () => {
    for (const verifier of ["safe", "unsafe"] as const) {
      const dir = join(root, `trial-${++trial}`);
      const owner = await launch(dir, "start", verifier);
      expect(await owner.line("TOOL_STARTED"), owner.transcript()).toBe("TOOL_STARTED");
      owner.send("finish");
      expect(await owner.line("VERIFIER_STARTED"), owner.transcript()).toBe("VERIFIER_STARTED");
      expect((await owner.kill()).signal).toBe("SIGKILL");
      const cut = (await journalOf(dir)).events;
      expect(cut.filter((event) => event.type === "verifier.started")).toHaveLength(1);
      expect(cut.filter((event) => event.type === "verifier.finished")).toHaveLength(0);

      const resumer = await launch(dir, "resume", verifier);
      if (verifier === "safe") {
        expect(await resumer.line("VERIFIER_STARTED"), resumer.transcript()).toBe("VERIFIER_STARTED");
        resumer.send("finish");
        expect(await resumer.line("DONE "), resumer.transcript()).toBe('DONE {"outcome":"verified_success"}');
      } else {
        expect(await resumer.line("WAITING "), resumer.transcript()).toBe("WAITING escalation");
        expect(resumer.has("VERIFIER_STARTED"), resumer.transcript()).toBe(false);
      }
      expect(resumer.has("MODEL_CALL"), resumer.transcript()).toBe(false);
      const { events, verification } = await journalOf(dir);
      expect(verification).toMatchObject({ ok: true });
      expect(events.filter((event) => event.type === "verifier.finished")).toHaveLength(verifier === "safe" ? 1 : 0);
      expect(events.at(-1)?.type).toBe(verifier === "safe" ? "run.completed" : "run.waiting");
    }
  }, 120_000);

  it("a cancel from another process cuts the owner's model call in flight: model.failed CANCELLED, the call's budget settled, the run cancelled", async () => {
    const dir = join(root, `trial-${++trial}`);
    const owner = await launch(dir, "start", "none", "hang");
    expect(await owner.line("MODEL_CALL"), owner.transcript()).toMatch(/^MODEL_CALL/);
    const interruptId = await interruptFrom(dir, "interrupt-cancel");
    // The held call never answers: only the owner's inbox watch can end the run.
    expect(await owner.line("DONE "), owner.transcript()).toBe('DONE {"outcome":"cancelled"}');
    expect((await owner.ended).code, owner.transcript()).toBe(0);
    const { events, verification } = await journalOf(dir);
    expect(verification).toMatchObject({ ok: true });
    expect(events.slice(-4).map((event) => event.type)).toEqual(["model.failed", "budget.settled", "interrupt.landed", "run.completed"]);
    const [failed, , landed, completed] = events.slice(-4);
    expect(failed?.type === "model.failed" && failed.data).toMatchObject({ code: "CANCELLED", retrying: false });
    expect(landed?.type === "interrupt.landed" && landed.data.interruptId).toBe(interruptId);
    expect(completed?.type === "run.completed" && completed.data.outcome).toEqual({ status: "cancelled", reason: "the customer withdrew" });
    expect(unsettled(events)).toEqual([]);
  }, 120_000);

  it("SIGKILLed in a model call with a cancel pending: the resume ends the run cancelled without asking the model, the cut call's budget settled", async () => {
    const dir = join(root, `trial-${++trial}`);
    const owner = await launch(dir, "start", "none", "hang");
    expect(await owner.line("MODEL_CALL"), owner.transcript()).toMatch(/^MODEL_CALL/);
    expect((await owner.kill()).signal).toBe("SIGKILL");
    const interruptId = await interruptFrom(dir, "interrupt-cancel");
    const cut = (await journalOf(dir)).events;
    expect(cut.at(-1)?.type).toBe("model.requested");
    expect(unsettled(cut)).toHaveLength(1);

    const resumer = await launch(dir, "resume", "none", "hang");
    expect(await resumer.line("DONE "), resumer.transcript()).toBe('DONE {"outcome":"cancelled"}');
    expect(resumer.has("MODEL_CALL"), resumer.transcript()).toBe(false);
    const { events, verification } = await journalOf(dir);
    expect(verification).toMatchObject({ ok: true });
    expect(events.slice(cut.length).map((event) => event.type)).toEqual(["budget.settled", "interrupt.landed", "run.completed"]);
    const landed = events.find((event) => event.type === "interrupt.landed");
    expect(landed?.type === "interrupt.landed" && landed.data.interruptId).toBe(interruptId);
    expect(events.at(-1)?.type === "run.completed" && events.at(-1)?.data).toMatchObject({ outcome: { status: "cancelled", reason: "the customer withdrew" } });
    expect(unsettled(events)).toEqual([]);
  }, 120_000);
});
