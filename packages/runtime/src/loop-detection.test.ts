import { createMemoryJournal } from "@yoke/journal";
import { YokeError, parseYokeEvent, type YokeEvent } from "@yoke/protocol";
import { callTools, say, type ScriptedStep } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { crashingJournal, readAll, rig } from "./__fixtures__/harness-fixtures.js";
import { defineTool } from "./define-tool.js";
import type { RunResult, WaitingRunResult } from "./harness-types.js";

const echo = (text: string) => callTools([{ name: "echo", args: { text } }]);
const poll = defineTool({
  name: "poll_queue",
  description: "Reads the queue's length.",
  input: z.object({}),
  sideEffect: "none",
  loop: { optOut: "a read-only poll: identical calls are how it waits for the queue to drain" },
  execute: async () => "3 jobs queued",
});
const lookup = defineTool({
  name: "lookup",
  description: "Looks a key up.",
  input: z.object({ key: z.string() }),
  sideEffect: "none",
  execute: async ({ key }) => `value of ${key}`,
});

async function journaled(journal: Parameters<typeof readAll>[0], runId: string): Promise<YokeEvent[]> {
  return (await readAll(journal, runId)).map(parseYokeEvent);
}

function detections(events: YokeEvent[]) {
  return events.flatMap((event) =>
    event.type === "loop.detected" ? [{ response: event.data.response, pattern: event.data.pattern, count: event.data.count }] : [],
  );
}

/** Issue 15, point 4. */
describe("loop detection", () => {
  it("identical calls are steered at the 3rd repeat and escalated after the steering", async () => {
    const { harness, model, journal } = rig([
      echo("x"),
      echo("x"),
      echo("x"),
      (request) => {
        const last = request.messages.at(-1);
        expect(last?.role === "user" && last.content[0]!.type === "text" && last.content[0]!.text).toMatch(
          /^\[runtime\] Loop detected: you called echo 3 times with the same arguments/,
        );
        return echo("x");
      },
      say("never asked"),
    ]);
    const result = (await harness.start("t")) as RunResult | WaitingRunResult;
    expect(model.remaining).toBe(1);
    expect(result.waiting).toMatchObject({ kind: "human", reason: "escalation" });
    const events = await journaled(journal, result.runId);
    expect(detections(events)).toEqual([
      { response: "steer", pattern: "repeat", count: 3 },
      { response: "escalate", pattern: "repeat", count: 4 },
    ]);
    const steering = events.filter((event) => event.type === "input.added").map((event) => event.type === "input.added" && event.data.source);
    expect(steering).toEqual(["loop-detection"]);
    expect(events.at(-1)?.type).toBe("run.waiting");
    // A person answers: the loop history restarts and the run goes on.
    const done = await harness.resume(result.runId, { input: "Stop echoing; answer." });
    expect(done.outcome).toEqual({ status: "completed" });
  });

  it("a cycle A,B,A,B is steered", async () => {
    const a = () => callTools([{ name: "lookup", args: { key: "a" } }]);
    const b = () => callTools([{ name: "lookup", args: { key: "b" } }]);
    const { harness, journal } = rig([a(), b(), a(), b(), say("done")], { tools: [lookup] });
    const { runId, outcome } = await harness.start("t");
    expect(outcome).toEqual({ status: "completed" });
    const events = await journaled(journal, runId);
    const detected = events.find((event) => event.type === "loop.detected");
    expect(detected?.type === "loop.detected" && detected.data).toMatchObject({ pattern: "cycle", cycleLength: 2, response: "steer", toolName: "lookup" });
    // Steered after the 4th call, before the 5th turn.
    expect(events.findIndex((event) => event.type === "loop.detected")).toBeLessThan(events.findLastIndex((event) => event.type === "turn.started"));
  });

  it("a tool that opted out (declared reason) is never counted; the harness's perTool can opt a tool out too", async () => {
    const calls = (name: string, count: number): ScriptedStep[] =>
      Array.from({ length: count }, () => callTools([{ name, args: name === "echo" ? { text: "x" } : {} }]));
    const declared = rig([...calls("poll_queue", 6), say("drained")], { tools: [poll] });
    const first = await declared.harness.start("t");
    expect(first.outcome).toEqual({ status: "completed" });
    expect(detections(await journaled(declared.journal, first.runId))).toEqual([]);

    const configured = rig([...calls("echo", 5), say("done")], { loopDetection: { perTool: { echo: { optOut: "echo is idempotent by design" } } } });
    const second = await configured.harness.start("t");
    expect(second.outcome).toEqual({ status: "completed" });
    expect(detections(await journaled(configured.journal, second.runId))).toEqual([]);
  });

  it("a tool's loop declaration is checked when it is defined (CONFIG_INVALID)", () => {
    const base = { name: "t", description: "d", input: z.object({}), sideEffect: "none" as const, execute: async () => "x" };
    expect(() => defineTool({ ...base, loop: { threshold: 1 } })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    expect(() => defineTool({ ...base, loop: { optOut: " " } })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    expect(defineTool({ ...base, loop: { optOut: "polls" } }).loop).toEqual({ optOut: "polls" });
  });

  it("a per-tool threshold overrides the default", async () => {
    const { harness, journal } = rig([echo("x"), echo("x"), echo("x"), echo("x"), say("done")], { loopDetection: { perTool: { echo: { threshold: 4 } } } });
    const { runId } = await harness.start("t");
    expect(detections(await journaled(journal, runId))).toEqual([{ response: "steer", pattern: "repeat", count: 4 }]);
  });

  it("a scripted model that loops forever ends in a typed outcome within the turn limit", async () => {
    const forever: ScriptedStep[] = Array.from({ length: 50 }, () => echo("again"));
    const { harness, model } = rig(forever, { maxTurns: 10 });
    const waiting = (await harness.start("t")) as RunResult | WaitingRunResult;
    expect(waiting.state.turns).toBeLessThanOrEqual(10);
    expect(50 - model.remaining).toBe(4);
    expect(waiting.waiting).toMatchObject({ kind: "human", reason: "escalation" });
    expect((await harness.resume(waiting.runId, { close: "looping" })).outcome?.status).toBe("escalated");

    // Without loop detection, the turn limit is what stops it.
    const off = rig(
      Array.from({ length: 50 }, () => echo("again")),
      { maxTurns: 10, loopDetection: false },
    );
    expect((await off.harness.start("t")).outcome).toEqual({ status: "budget_exhausted", budget: "turns", limit: 10 });
  });

  it("is rebuilt from the journal: a crash at any append, then a resume, decides exactly as the uninterrupted run", async () => {
    const script = (): ScriptedStep[] => [echo("x"), echo("x"), echo("x"), echo("y"), echo("x"), say("unused")];
    const reference = rig(script());
    const uninterrupted = await reference.harness.start("t", { runId: "run_ref" });
    // What loop detection decides, and on what (a crash mid-call adds reconciliation events, which change nothing here).
    const decisions = (events: YokeEvent[]) =>
      events
        .filter((event) => ["action.committed", "loop.detected", "input.added", "run.waiting", "turn.started"].includes(event.type))
        .map((event) => event.type);
    const expected = decisions(await journaled(reference.journal, "run_ref"));
    expect(uninterrupted.waiting).toMatchObject({ reason: "escalation" });
    for (let allowed = 1; allowed < reference.journal.appends.length; allowed++) {
      const inner = createMemoryJournal();
      const crashing = rig(script(), { journal: crashingJournal(inner, allowed, "written") });
      await crashing.harness.start("t", { runId: "run_crash" }).catch(() => undefined);
      const done = await journaled(inner, "run_crash");
      // The fresh process asks the model for what the first did not get answered.
      const resumed = rig(script().slice(done.filter((event) => event.type === "model.responded").length), { journal: inner, idStart: 500 });
      const result = (await resumed.harness.resume("run_crash")) as RunResult | WaitingRunResult;
      expect(result.waiting, `crash after ${allowed} appends`).toMatchObject({ reason: "escalation" });
      expect(decisions(await journaled(inner, "run_crash")), `crash after ${allowed} appends`).toEqual(expected);
      expect(detections(await journaled(inner, "run_crash"))).toEqual(detections(await journaled(reference.journal, "run_ref")));
    }
  });
});

/** Issue 33, item 3: cosmetic variations are the same call. */
describe("loop detection sees through cosmetic variations", () => {
  const lookups = (keys: string[]): ScriptedStep[] => keys.map((key) => callTools([{ name: "lookup", args: { key } }]));

  it("caseInsensitive takes dotted argument paths, declared or configured (CONFIG_INVALID otherwise)", () => {
    const base = { name: "t", description: "d", input: z.object({}), sideEffect: "none" as const, execute: async () => "x" };
    for (const caseInsensitive of [["a..b"], [""], ["a b"], "path"]) {
      expect(() => defineTool({ ...base, loop: { caseInsensitive: caseInsensitive as string[] } })).toThrow(
        expect.objectContaining({ code: "CONFIG_INVALID" }),
      );
      expect(() => rig([], { loopDetection: { perTool: { echo: { caseInsensitive: caseInsensitive as string[] } } } })).toThrow(
        expect.objectContaining({ code: "CONFIG_INVALID" }),
      );
    }
    expect(defineTool({ ...base, loop: { caseInsensitive: ["path", "filter.owner"] } }).loop).toEqual({ caseInsensitive: ["path", "filter.owner"] });
  });

  it("twelve calls differing only in trailing spaces are one repeat: steered at the 3rd, escalated at the 4th", async () => {
    const keys = Array.from({ length: 12 }, (_, n) => `a${" ".repeat(n)}`);
    const { harness, journal, model } = rig([...lookups(keys), say("never asked")], { tools: [lookup] });
    const result = (await harness.start("t")) as RunResult | WaitingRunResult;
    expect(result.waiting).toMatchObject({ reason: "escalation" });
    expect(model.remaining).toBe(9);
    expect(detections(await journaled(journal, result.runId))).toEqual([
      { response: "steer", pattern: "repeat", count: 3 },
      { response: "escalate", pattern: "repeat", count: 4 },
    ]);
  });

  it("identical calls whose failing result carries a counter (attempt, time, request id) are one repeat", async () => {
    let attempt = 0;
    const flaky = defineTool({
      name: "fetch_page",
      description: "Fetches a page.",
      input: z.object({ url: z.string() }),
      sideEffect: "none",
      execute: async () => {
        attempt++;
        throw new YokeError(
          "TOOL_FAILED",
          `attempt ${attempt} failed at 12:0${attempt}:3${attempt}.${attempt}Z (request ${attempt}f3a9c0${attempt}d2e7b): 503`,
        );
      },
    });
    const fetches = Array.from({ length: 6 }, () => callTools([{ name: "fetch_page", args: { url: "https://example.test/" } }]));
    const { harness, journal } = rig([...fetches, say("never asked")], { tools: [flaky] });
    const result = (await harness.start("t")) as RunResult | WaitingRunResult;
    expect(result.waiting).toMatchObject({ reason: "escalation" });
    expect(detections(await journaled(journal, result.runId))).toEqual([
      { response: "steer", pattern: "repeat", count: 3 },
      { response: "escalate", pattern: "repeat", count: 4 },
    ]);
  });

  it("case counts unless the tool declares it does not (loop.caseInsensitive); a succeeding result whose number moves is progress, not a loop", async () => {
    const open = (caseInsensitive?: string[]) =>
      defineTool({
        name: "open_file",
        description: "Opens a file.",
        input: z.object({ path: z.string() }),
        sideEffect: "none",
        ...(caseInsensitive === undefined ? {} : { loop: { caseInsensitive } }),
        execute: async () => {
          throw new YokeError("TOOL_FAILED", "no such file");
        },
      });
    const opens = ["README.md", "readme.md", "ReadMe.md", "README.MD"].map((path) => callTools([{ name: "open_file", args: { path } }]));
    const declared = rig([...opens, say("done")], { tools: [open(["path"])] });
    const first = await declared.harness.start("t");
    expect(detections(await journaled(declared.journal, first.runId))).toEqual([
      { response: "steer", pattern: "repeat", count: 3 },
      { response: "escalate", pattern: "repeat", count: 4 },
    ]);
    const undeclared = rig([...opens, say("done")], { tools: [open()] });
    const second = await undeclared.harness.start("t");
    expect(second.outcome).toEqual({ status: "completed" });
    expect(detections(await journaled(undeclared.journal, second.runId))).toEqual([]);

    let left = 6;
    const drain = defineTool({
      name: "drain",
      description: "Drains a job.",
      input: z.object({}),
      sideEffect: "none",
      execute: async () => `${--left} jobs left`,
    });
    const drains = rig([...Array.from({ length: 5 }, () => callTools([{ name: "drain", args: {} }])), say("drained")], { tools: [drain] });
    const third = await drains.harness.start("t");
    expect(third.outcome).toEqual({ status: "completed" });
    expect(detections(await journaled(drains.journal, third.runId))).toEqual([]);
  });
});
