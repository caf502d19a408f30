// A cancel interrupt cuts a model call in flight short (issue 15, point 5); an input does not.
// tests/interrupts does the same across real processes, and through a SIGKILL.
import { foldBudget } from "@yoke/budget";
import { createMemoryJournal } from "@yoke/journal";
import { YokeError, parseYokeEvent, type GenerateOptions, type ModelRequest, type ModelResponse, type ProviderAdapterV1, type YokeEvent } from "@yoke/protocol";
import type { Timers } from "@yoke/scheduler";
import { callTools, createScriptedModel, say, type ScriptedStep } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { capturedLogs } from "./__fixtures__/captured-logs.js";
import { readAll, rig } from "./__fixtures__/harness-fixtures.js";
import { defineTool } from "./define-tool.js";
import type { Harness } from "./harness-types.js";

const BUDGET = { limits: { turns: 5, tokens: 1_000_000 }, outputReserve: 100 };
const POLL_MS = 250;

/** One call the provider is holding: it answers only when told (or fails when its signal aborts). */
interface HeldCall {
  readonly request: ModelRequest;
  readonly signal: AbortSignal | undefined;
  answer(): void;
}

/**
 * A provider that holds every call until the test answers it, and honours its signal: an
 * abort fails the call with CANCELLED at once. `next()` resolves with the next call it holds.
 */
function heldProvider(steps: readonly ScriptedStep[]) {
  const scripted = createScriptedModel(steps);
  const held: HeldCall[] = [];
  const waiters: ((call: HeldCall) => void)[] = [];
  const provider: ProviderAdapterV1 = {
    specificationVersion: "v1",
    provider: scripted.provider,
    modelId: scripted.modelId,
    capabilities: scripted.capabilities,
    generate(request: ModelRequest, options?: GenerateOptions): Promise<ModelResponse> {
      return new Promise((resolve, reject) => {
        const signal = options?.signal;
        signal?.addEventListener("abort", () => reject(new YokeError("CANCELLED", "the request was aborted")), { once: true });
        const call: HeldCall = { request, signal, answer: () => resolve(scripted.generate(request, options)) };
        const waiter = waiters.shift();
        if (waiter === undefined) held.push(call);
        else waiter(call);
      });
    },
  };
  return {
    provider,
    next: (): Promise<HeldCall> => {
      const call = held.shift();
      return call === undefined ? new Promise((resolve) => waiters.push(resolve)) : Promise.resolve(call);
    },
  };
}

/** Timers the test fires by hand: nothing happens on the wall clock. */
function handTimers() {
  let nextHandle = 0;
  const armed = new Map<number, { callback: () => void; ms: number }>();
  const timers: Timers = {
    setTimeout: (callback, ms) => {
      armed.set(++nextHandle, { callback, ms });
      return nextHandle;
    },
    clearTimeout: (handle) => void armed.delete(handle as number),
  };
  return {
    timers,
    /** How many timers of `ms` are armed. */
    armed: (ms: number) => [...armed.values()].filter((timer) => timer.ms === ms).length,
    /** Fires every timer of `ms` armed now; returns how many. */
    fire(ms: number): number {
      const due = [...armed].filter(([, timer]) => timer.ms === ms);
      for (const [handle, timer] of due) {
        armed.delete(handle);
        timer.callback();
      }
      return due.length;
    },
  };
}

async function eventsOf(journal: Parameters<typeof readAll>[0], runId: string): Promise<YokeEvent[]> {
  return (await readAll(journal, runId)).map(parseYokeEvent);
}

/** Every reservation the run holds open at its end (reserved, never settled), as the budget's own fold sees it. */
function unsettled(events: readonly YokeEvent[]): string[] {
  const ledger = foldBudget(events);
  if (ledger === undefined) throw new Error("the run opened no budget");
  return ledger.openReservations().map((reservation) => reservation.reservationId);
}

/** Lets pending promise callbacks run (no timer involved). */
async function drain(): Promise<void> {
  for (let tick = 0; tick < 50; tick++) await Promise.resolve();
}

describe("a cancel interrupt during a model call", () => {
  it("sent through the harness that drives the run: the call is aborted at once, journaled as model.failed CANCELLED with its budget settled, the cancel lands, the run ends cancelled", async () => {
    const held = heldProvider([]);
    const hand = handTimers();
    const { logger, said } = capturedLogs();
    const { harness, journal } = rig([], { provider: held.provider, timers: hand.timers, budget: BUDGET, logger });
    const running = harness.start("t", { runId: "run_cut" });
    const call = await held.next();
    const { interruptId } = await harness.interrupt("run_cut", { cancel: "operator stop" });
    // No timer fired: neither the inbox poll nor the call's deadline cut it.
    const { outcome } = await running;
    expect(outcome).toEqual({ status: "cancelled", reason: "operator stop" });
    // call-model.ts's log line (mutation testing, issue 17): which cancel, which attempt.
    expect(said("model call cancelled by an interrupt")).toEqual([{ interruptId, attempt: 1 }]);
    expect(call.signal?.aborted).toBe(true);
    expect(journal.appends.at(-1)).toEqual(["model.failed", "budget.settled", "interrupt.landed", "run.completed"]);
    const events = await eventsOf(journal, "run_cut");
    const failed = events.find((event) => event.type === "model.failed");
    expect(failed?.type === "model.failed" && failed.data).toMatchObject({ attempt: 1, code: "CANCELLED", retryable: false, retrying: false });
    const landed = events.find((event) => event.type === "interrupt.landed");
    expect(landed?.type === "interrupt.landed" && landed.data).toMatchObject({ interruptId, kind: "cancel" });
    // The call's reservation (its turn and tokens held) is settled, not abandoned: a cut call reports no
    // usage, and unknown is never charged as zero: it is charged what it held (tokens, turn), and its time.
    expect(unsettled(events)).toEqual([]);
    const requested = events.find((event) => event.type === "model.requested");
    const hold = requested?.type === "model.requested" ? requested.data.reserved?.amounts : undefined;
    expect(hold?.tokens).toBeGreaterThan(0);
    const settled = events.find((event) => event.type === "budget.settled");
    const charged = settled?.type === "budget.settled" ? settled.data.charged : undefined;
    expect(charged).toMatchObject({ turns: 1, tokens: hold?.tokens, input_tokens: hold?.input_tokens, output_tokens: hold?.output_tokens });
    expect(charged?.wall_time ?? 0).toBeLessThanOrEqual(hold?.wall_time ?? 0);
    // Nothing of the run's is left armed.
    expect(hand.armed(POLL_MS) + hand.armed(500)).toBe(0);
  });

  it("sent from another process through the journal: the owner reads its inbox every interrupts.pollMs while the call is in flight and cuts the call", async () => {
    const journal = createMemoryJournal();
    const held = heldProvider([]);
    const hand = handTimers();
    const owner = rig([], { journal, provider: held.provider, timers: hand.timers, budget: BUDGET, interrupts: { pollMs: POLL_MS } });
    const other = rig([], { journal, idStart: 900 }).harness;
    const running = owner.harness.start("t", { runId: "run_far" });
    await held.next();
    // An empty poll: the call goes on, the watch is armed again.
    expect(hand.fire(POLL_MS)).toBe(1);
    await drain();
    expect(hand.armed(POLL_MS)).toBe(1);
    await other.interrupt("run_far", { cancel: "the customer withdrew" });
    expect(hand.fire(POLL_MS)).toBe(1);
    const { outcome } = await running;
    expect(outcome).toEqual({ status: "cancelled", reason: "the customer withdrew" });
    expect(owner.journal.appends.at(-1)).toEqual(["model.failed", "budget.settled", "interrupt.landed", "run.completed"]);
    expect(unsettled(await eventsOf(journal, "run_far"))).toEqual([]);
    expect(hand.armed(POLL_MS)).toBe(0);
  });

  it("an input interrupt never cuts the call: the answer is journaled, the input lands at the next turn, the model sees it", async () => {
    const journal = createMemoryJournal();
    const held = heldProvider([say("first answer"), say("réponse")]);
    const hand = handTimers();
    const owner = rig([], { journal, provider: held.provider, timers: hand.timers, budget: BUDGET, interrupts: { pollMs: POLL_MS } });
    const other = rig([], { journal, idStart: 900 }).harness;
    const running = owner.harness.start("t", { runId: "run_input" });
    const first = await held.next();
    // One input through the driving harness, one from another process, read by the watch.
    await owner.harness.interrupt("run_input", { input: "Answer in French." });
    await other.interrupt("run_input", { input: "Be brief." });
    expect(hand.fire(POLL_MS)).toBe(1);
    await drain();
    expect(first.signal?.aborted).toBe(false);
    expect(hand.armed(POLL_MS)).toBe(1);
    first.answer();
    const second = await held.next();
    expect(second.request.messages.slice(-2)).toEqual([
      { role: "user", content: [{ type: "text", text: "Answer in French." }] },
      { role: "user", content: [{ type: "text", text: "Be brief." }] },
    ]);
    second.answer();
    const { outcome, text } = await running;
    expect(outcome).toEqual({ status: "completed" });
    expect(text).toBe("réponse");
    const events = await eventsOf(journal, "run_input");
    expect(events.filter((event) => event.type === "model.failed")).toEqual([]);
    expect(events.filter((event) => event.type === "model.responded")).toHaveLength(2);
    expect(events.filter((event) => event.type === "interrupt.landed")).toHaveLength(2);
    expect(unsettled(events)).toEqual([]);
  });

  it("a cancel while a tool runs, through the driving harness, still lands only after the batch: never between a call and its result", async () => {
    let harness: Harness | undefined;
    let sent: Promise<unknown> | undefined;
    const slow = defineTool({
      name: "slow",
      description: "Works while someone cancels the run.",
      input: z.object({}),
      sideEffect: "none",
      async execute(_input, context) {
        sent = harness!.interrupt(context.run!.runId, { cancel: "stop now" });
        await sent;
        return "worked";
      },
    });
    const built = rig([callTools([{ name: "slow" }]), say("never asked")], { tools: [slow], budget: BUDGET });
    harness = built.harness;
    const { runId, outcome } = await harness.start("t");
    expect(outcome).toEqual({ status: "cancelled", reason: "stop now" });
    expect(built.model.remaining).toBe(1);
    // The run's appends (the inbox's own append is the other stream's).
    const appends = built.journal.appends.filter((types) => !types.includes("interrupt.requested"));
    expect(appends.slice(1)).toEqual([
      ["model.responded", "action.admitted"],
      ["action.committed", "interrupt.landed", "run.completed"],
    ]);
    const events = await eventsOf(built.journal, runId);
    expect(events.filter((event) => event.type === "model.failed")).toEqual([]);
    expect(unsettled(events)).toEqual([]);
  });

  it("the caller's signal cuts the call the same way: model.failed CANCELLED and the call's budget settled with the run's end", async () => {
    const held = heldProvider([]);
    const controller = new AbortController();
    const { harness, journal } = rig([], { provider: held.provider, timers: handTimers().timers, budget: BUDGET });
    const running = harness.start("t", { runId: "run_signal", signal: controller.signal });
    await held.next();
    controller.abort("caller stop");
    expect((await running).outcome).toEqual({ status: "cancelled", reason: "caller stop" });
    expect(journal.appends.at(-1)).toEqual(["model.failed", "budget.settled", "run.completed"]);
    expect(unsettled(await eventsOf(journal, "run_signal"))).toEqual([]);
  });

  it("refuses an interrupts.pollMs that is not a positive integer (CONFIG_INVALID)", () => {
    for (const pollMs of [0, -1, 1.5]) {
      expect(() => rig([], { interrupts: { pollMs } })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID", details: { option: "interrupts" } }));
    }
  });
});
