import { createMemoryJournal } from "@yoke/journal";
import { parseYokeEvent, type YokeEvent } from "@yoke/protocol";
import { callTools, refuse, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { TENANT, readAll, rig } from "./__fixtures__/harness-fixtures.js";
import { defineTool } from "./define-tool.js";
import type { Harness, RunResult, WaitingRunResult } from "./harness-types.js";
import { INTERRUPT_INBOX_SUFFIX } from "./interrupts.js";

async function journaled(journal: Parameters<typeof readAll>[0], runId: string): Promise<YokeEvent[]> {
  return (await readAll(journal, runId)).map(parseYokeEvent);
}

/** A tool whose handler sends an interrupt through `other` (a second harness on the same journal: another process). */
function interruptingTool(send: (runId: string) => Promise<unknown>) {
  return defineTool({
    name: "slow",
    description: "Works while someone interrupts.",
    input: z.object({}),
    sideEffect: "none",
    async execute(_input, context) {
      await send(context.run!.runId);
      return "worked";
    },
  });
}

/** Issue 15, point 5 (in one process; tests/interrupts does it across real processes). */
describe("interrupts", () => {
  it("an input from another harness lands once, between turns, after the tool's result; the model sees it", async () => {
    const journal = createMemoryJournal();
    let other: Harness | undefined;
    const tool = interruptingTool((runId) => other!.interrupt(runId, { input: "Also check the staging database." }));
    const seen: string[] = [];
    const owner = rig(
      [
        callTools([{ name: "slow" }]),
        (request) => {
          seen.push(JSON.stringify(request.messages.at(-1)));
          return say("done");
        },
      ],
      { journal, tools: [tool] },
    );
    other = rig([], { journal, idStart: 900 }).harness;
    const { runId, outcome } = await owner.harness.start("t");
    expect(outcome).toEqual({ status: "completed" });
    owner.model.assertConsumed();
    expect(seen).toEqual([JSON.stringify({ role: "user", content: [{ type: "text", text: "Also check the staging database." }] })]);
    const events = await journaled(journal, runId);
    const landed = events.filter((event) => event.type === "interrupt.landed");
    expect(landed).toHaveLength(1);
    // Landed with its input, before a turn starts: never between a call and its result.
    expect(owner.journal.appends).toContainEqual([
      "action.committed",
      "interrupt.landed",
      "input.added",
      "turn.started",
      "context.compiled",
      "model.requested",
    ]);
    const inbox = await journaled(journal, `${runId}${INTERRUPT_INBOX_SUFFIX}`);
    expect(inbox.map((event) => event.type)).toEqual(["run.started", "interrupt.requested"]);
    expect(landed[0]?.type === "interrupt.landed" && landed[0].data.interruptId).toBe(inbox[1]?.type === "interrupt.requested" && inbox[1].data.interruptId);
  });

  it("an input sent while the model answers is never dropped: the answer does not end the run, the model sees the input and answers again", async () => {
    let harnessRef: Harness | undefined;
    let sent = false;
    const { harness, model, journal } = rig(
      [
        say("first answer"),
        (request) => {
          expect(request.messages.at(-1)).toEqual({ role: "user", content: [{ type: "text", text: "Answer in French." }] });
          return say("réponse");
        },
      ],
      {
        onEvent: (event) => {
          if (event.type === "model.requested" && !sent) {
            sent = true;
            void harnessRef!.interrupt(event.runId, { input: "Answer in French." });
          }
        },
      },
    );
    harnessRef = harness;
    const { runId, outcome, text } = await harness.start("t");
    model.assertConsumed();
    expect(outcome).toEqual({ status: "completed" });
    expect(text).toBe("réponse");
    expect((await journaled(journal, runId)).filter((event) => event.type === "interrupt.landed")).toHaveLength(1);
  });

  it("an input sent to a waiting run answers the wait on the next resume, exactly once", async () => {
    const { harness, model, journal } = rig([refuse("Which account?"), say("done")]);
    const waiting = (await harness.start("t")) as RunResult | WaitingRunResult;
    expect(waiting.waiting?.kind).toBe("human");
    const { interruptId } = await harness.interrupt(waiting.runId, { input: "Account 7." });
    expect(interruptId).toMatch(/^interrupt_/);
    expect((await harness.resume(waiting.runId)).outcome).toEqual({ status: "completed" });
    model.assertConsumed();
    const events = await journaled(journal, waiting.runId);
    expect(events.filter((event) => event.type === "input.added").map((event) => event.type === "input.added" && event.data.source)).toEqual(["interrupt"]);
    expect(events.filter((event) => event.type === "interrupt.landed")).toHaveLength(1);
  });

  it("a cancel sent while nobody drives the run lands on resume: cancelled", async () => {
    const { harness, journal } = rig([refuse("no")]);
    const waiting = await harness.start("t");
    await harness.interrupt(waiting.runId, { cancel: "operator stop" });
    const done = await harness.resume(waiting.runId);
    expect(done.outcome).toEqual({ status: "cancelled", reason: "operator stop" });
    expect(journal.appends.at(-1)).toEqual(["interrupt.landed", "run.completed"]);
  });

  it("refuses a finished run (RUN_FINISHED), an unknown run (RUN_NOT_FOUND) and an empty request (CONFIG_INVALID)", async () => {
    const { harness } = rig([say("done")]);
    const { runId } = await harness.start("t");
    await expect(harness.interrupt(runId, { input: "late" })).rejects.toMatchObject({ code: "RUN_FINISHED" });
    await expect(harness.interrupt("run_nope", { input: "x" })).rejects.toMatchObject({ code: "RUN_NOT_FOUND" });
    await expect(harness.interrupt(runId, {} as { input: string })).rejects.toMatchObject({ code: "CONFIG_INVALID" });
  });

  it("the inbox lives in the run's tenant only", async () => {
    const journal = createMemoryJournal();
    const { harness } = rig([refuse("no")], { journal });
    const { runId } = await harness.start("t");
    await harness.interrupt(runId, { input: "hi" });
    expect(await journal.head({ tenantId: TENANT, runId: `${runId}${INTERRUPT_INBOX_SUFFIX}` })).not.toBeNull();
    expect(await journal.head({ tenantId: "tenant_other", runId: `${runId}${INTERRUPT_INBOX_SUFFIX}` })).toBeNull();
  });
});
