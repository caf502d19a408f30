// Interrupts across real processes (issue 15): a second process appends an interrupt while
// the first runs the run; a run SIGKILLed with an interrupt pending lands it exactly once on
// resume; a run SIGKILLed while its verifier runs re-runs a replay-safe verifier and escalates
// (waits for a person) otherwise. Every wait is on a child's output, never on the clock.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteJournal } from "@yoke/journal";
import { parseYokeEvent, type YokeEvent } from "@yoke/protocol";
import { afterAll, describe, expect, it } from "vitest";
import { ScenarioProcess, type Mode } from "./interrupt-process.ts";

const scope = { tenantId: "tenant_interrupts", runId: "run_interrupted" };
const INPUT = "Also check the staging database.";
const root = mkdtempSync(join(tmpdir(), "yoke-interrupts-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let trial = 0;

async function launch(dir: string, mode: Mode, verifier: "none" | "safe" | "unsafe" = "none"): Promise<ScenarioProcess> {
  const child = new ScenarioProcess(mode, dir, mode, verifier);
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

function interruptInputs(events: YokeEvent[]): string[] {
  return events.flatMap((event) => (event.type === "input.added" && event.data.source === "interrupt" ? [event.data.content[0]!.text] : []));
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
});
