// Survivors of `pnpm mutate scheduler` in execute-batch.ts, envelopes.ts, dispatch-slots.ts and
// conflicts.ts: deferral behind any unsettled predecessor, the deadline timer, which failures
// are retryable, what a handler's answer may be, the output budget's edges, slot accounting
// and the conflict rule's defaults.
import { getEventListeners } from "node:events";
import { YokeError, steppingClock, type AnyToolDeclaration } from "@yoke/protocol";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { manualTimers, neverTimers } from "./__fixtures__/manual-timers.js";
import { declaration } from "./__fixtures__/tools.js";
import { ALL_RESOURCES, conflicts, defaultAccess } from "./conflicts.js";
import { DispatchSlots } from "./dispatch-slots.js";
import { executeBatch, type AttemptOutcome, type DispatchItem } from "./execute-batch.js";

const clock = steppingClock(0, 0);
const item = (tool: AnyToolDeclaration, index = 0, deadlineAt = 100): DispatchItem => ({
  tool,
  input: {},
  actionId: `action_${index}`,
  attemptId: `attempt_${index}`,
  attempt: 1,
  deadlineAt,
});
const one = async (tool: AnyToolDeclaration): Promise<AttemptOutcome> => (await executeBatch([item(tool)], { clock, timers: neverTimers }))[0]!;
const writes = (resource: string) => () => ({ reads: [], writes: [resource] });

describe("executeBatch: deferral and deadlines", () => {
  it("a call waits behind any unsettled earlier conflicting call, even when another settled for good", async () => {
    const ran: string[] = [];
    const tool = (name: string, fails?: YokeError) =>
      declaration({
        name,
        sideEffect: "idempotent",
        maxAttempts: 2,
        access: writes("x"),
        execute: async () => {
          ran.push(name);
          if (fails) throw fails;
          return "ok";
        },
      });
    const outcomes = await executeBatch(
      [item(tool("done"), 0), item(tool("retried", new YokeError("PROVIDER_UNAVAILABLE", "503")), 1), item(tool("last"), 2)],
      {
        clock,
        timers: neverTimers,
      },
    );
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(["committed", "failed", "deferred"]);
    expect(ran).toEqual(["done", "retried"]);
  });

  it("arms the deadline for what is left of it, and a `none` tool that overruns fails for good (TOOL_TIMEOUT)", async () => {
    const timers = manualTimers();
    const now = steppingClock(5_000, 0);
    const reasons: unknown[] = [];
    const hangs = declaration({
      name: "slow",
      sideEffect: "none",
      timeoutMs: 250,
      execute: (_input, { signal }) =>
        new Promise((_resolve, reject) =>
          signal.addEventListener("abort", () => {
            reasons.push(signal.reason);
            reject(signal.reason);
          }),
        ),
    });
    const running = executeBatch([item(hangs, 0, 5_250)], { clock: now, timers });
    await new Promise((resolve) => setImmediate(resolve));
    timers.fire(249);
    expect(timers.armed).toBe(1);
    timers.fire(250);
    const [outcome] = await running;
    expect(outcome).toMatchObject({
      kind: "failed",
      retryable: false,
      dispatched: true,
      result: { error: { code: "TOOL_TIMEOUT", message: "the tool did not finish within 250 ms and was abandoned" } },
    });
    // The handler sees why its signal aborted.
    expect(reasons).toMatchObject([{ code: "TOOL_TIMEOUT", message: "deadline of slow passed" }]);
  });

  it("hands the fencing token to the handler only when the run has one", async () => {
    const seen: unknown[] = [];
    const tool = declaration({
      name: "t",
      execute: async (_input, context) => {
        seen.push(Object.hasOwn(context, "fencingToken") ? context.fencingToken : "absent");
        return "ok";
      },
    });
    await executeBatch([item(tool)], { clock, timers: neverTimers, fencingToken: 7 });
    await executeBatch([item(tool)], { clock, timers: neverTimers });
    expect(seen).toEqual([7, "absent"]);
  });

  it("without injected timers, the real ones enforce the deadline", async () => {
    const hangs = declaration({
      name: "slow",
      sideEffect: "none",
      timeoutMs: 20,
      execute: (_input, { signal }) => new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
    });
    const [outcome] = await executeBatch([item(hangs, 0, 20)], { clock });
    expect(outcome).toMatchObject({ kind: "failed", result: { error: { code: "TOOL_TIMEOUT" } } });
  });

  it("without injected timers, the real ones arm the deadline while the handler runs and clear it once it settles", async () => {
    // vitest's fake timers stand in for the global ones `realTimers` calls: a timer left armed would
    // keep the process up until the deadline (30 s by default) after the run has ended.
    vi.useFakeTimers();
    try {
      const armed: number[] = [];
      const quick = declaration({
        name: "quick",
        execute: async () => {
          armed.push(vi.getTimerCount());
          return "ok";
        },
      });
      const [outcome] = await executeBatch([item(quick, 0, 60_000)], { clock });
      expect(outcome).toMatchObject({ kind: "committed" });
      expect([armed, vi.getTimerCount()]).toEqual([[1], 0]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("not dispatched: a passed deadline is retryable TOOL_TIMEOUT, a cancelled run final CANCELLED, each saying it did not run", async () => {
    const tool = declaration({ name: "late", sideEffect: "idempotent" });
    const timers = manualTimers();
    const blocker = declaration({ name: "first", sideEffect: "idempotent", access: writes("x"), execute: () => new Promise(() => undefined) });
    const second = declaration({ ...tool, access: writes("x") });
    const running = executeBatch([item(blocker, 0, 1_000), item(second, 1, 10)], { clock, timers });
    await new Promise((resolve) => setImmediate(resolve));
    timers.fire(10);
    const controller = new AbortController();
    controller.abort("stop");
    const [cancelled] = await executeBatch([item(tool)], { clock, timers: neverTimers, signal: controller.signal });
    expect(cancelled).toMatchObject({
      kind: "failed",
      retryable: false,
      dispatched: false,
      result: { error: { code: "CANCELLED", message: "the run was cancelled before this call was dispatched; it did not run" } },
    });
    timers.fire();
    const outcomes = await running;
    expect(outcomes[1]).toMatchObject({
      kind: "failed",
      retryable: true,
      dispatched: false,
      result: { error: { code: "TOOL_TIMEOUT", message: "the deadline passed before late could start; it did not run" } },
    });
  });

  it("TOOL_FAILED is never retryable, even when the error says it is; other codes keep their own flag", async () => {
    const throwing = (error: unknown) =>
      declaration({
        name: "t",
        execute: async () => {
          throw error;
        },
      });
    expect(await one(throwing(new YokeError("TOOL_FAILED", "no", { retryable: true })))).toMatchObject({ kind: "failed", retryable: false });
    expect(await one(throwing(new YokeError("PROVIDER_UNAVAILABLE", "503")))).toMatchObject({ kind: "failed", retryable: true });
    expect(await one(throwing(new YokeError("PROVIDER_UNAVAILABLE", "503", { retryable: false })))).toMatchObject({ kind: "failed", retryable: false });
  });

  it("refuses a limit that is not a positive integer, naming the option", () => {
    let caught: unknown;
    try {
      void executeBatch([], { clock, maxConcurrent: 0 });
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({
      code: "CONFIG_INVALID",
      message: "executeBatch: maxConcurrent must be a positive integer",
      details: { option: "maxConcurrent" },
    });
  });
});

describe("outputEnvelope: what a handler's answer becomes", () => {
  const answering = (answer: unknown, extra: Partial<AnyToolDeclaration> = {}) => declaration({ name: "t", execute: async () => answer as string, ...extra });
  const failure = (outcome: AttemptOutcome) => (outcome.kind === "committed" ? outcome.result.error : undefined);

  it("an error envelope says code and message in its text, and times the attempt", async () => {
    const ticking = steppingClock(1_000, 7);
    const tool = declaration({
      name: "t",
      execute: async () => {
        throw new Error("card declined");
      },
    });
    const [outcome] = await executeBatch([item(tool)], { clock: ticking, timers: neverTimers });
    const result = outcome!.kind === "failed" ? outcome!.result : undefined;
    expect(result?.content).toEqual([{ type: "text", text: "TOOL_FAILED: card declined" }]);
    expect(result?.timing.durationMs).toBe(result!.timing.endedAt - result!.timing.startedAt);
    expect(result?.timing.durationMs).toBeGreaterThan(0);
  });

  it("an ok envelope times the attempt too", async () => {
    const ticking = steppingClock(1_000, 7);
    const [outcome] = await executeBatch([item(answering("fine"))], { clock: ticking, timers: neverTimers });
    const timing = outcome!.kind === "committed" ? outcome!.result.timing : undefined;
    expect(timing!.durationMs).toBe(timing!.endedAt - timing!.startedAt);
    expect(timing!.durationMs).toBeGreaterThan(0);
  });

  it("anything but a string or { content: string } is TOOL_FAILED; so is a receipt or output that is not JSON", async () => {
    const shape = "the tool returned neither a string nor { content, output? } with JSON output";
    for (const answer of [42, null, { content: 5 }, undefined]) {
      expect(failure(await one(answering(answer))), String(answer)).toEqual({ code: "TOOL_FAILED", message: shape });
    }
    expect(failure(await one(answering({ content: "x", receipt: () => 1 })))).toEqual({ code: "TOOL_FAILED", message: "the tool's receipt is not JSON" });
    expect(failure(await one(answering({ content: "x", output: () => 1 })))).toEqual({ code: "TOOL_FAILED", message: "the tool's output is not JSON" });
    expect(await one(answering("a thrown non-error", { execute: async () => Promise.reject(42) }))).toMatchObject({
      kind: "failed",
      result: { error: { code: "TOOL_FAILED", message: "the tool failed without a message" } },
    });
  });

  it("structured output: kept when it passes the schema, or when the tool declares none; refused with a message when it fails", async () => {
    const schema = z.object({ n: z.number() });
    expect(await one(answering({ content: "x", output: { n: 1 } }, { output: schema }))).toMatchObject({
      kind: "committed",
      result: { status: "ok", output: { n: 1 } },
    });
    expect(await one(answering({ content: "x", output: { n: 1 } }))).toMatchObject({ kind: "committed", result: { status: "ok", output: { n: 1 } } });
    const throwing = z.object({ n: z.number() }).refine(() => {
      throw new Error("validator bug");
    });
    expect(failure(await one(answering({ content: "x", output: { n: 1 } }, { output: throwing })))).toMatchObject({ code: "TOOL_OUTPUT_INVALID" });
    expect(failure(await one(answering({ content: "x", output: { n: "no" } }, { output: schema })))).toEqual({
      code: "TOOL_OUTPUT_INVALID",
      message: "the tool's output does not match its output schema",
    });
  });

  it("the output budget: content of exactly the budget is whole; a cut keeps the budget, less one only before a high surrogate", async () => {
    const budget = { outputBudget: 4 };
    const exact = await one(answering("abcd", budget));
    expect(exact).toMatchObject({ kind: "committed", result: { content: [{ text: "abcd" }] } });
    expect(exact.kind === "committed" && exact.result.truncation).toBeUndefined();
    expect(await one(answering("abcdef", budget))).toMatchObject({ result: { content: [{ text: "abcd" }] } });
    // U+10000 and U+10FFFF: high surrogates 0xD800 and 0xDBFF, the two ends of the range, at the cut.
    expect(await one(answering("abc\u{10000}", budget))).toMatchObject({ result: { content: [{ text: "abc" }] } });
    expect(await one(answering("abc\u{10FFFF}", budget))).toMatchObject({ result: { content: [{ text: "abc" }] } });
    // A low surrogate (0xDC00) or the code unit after the range (0xE000) at the cut is kept.
    expect(await one(answering("ab\u{10000}cd", budget))).toMatchObject({ result: { content: [{ text: "ab\u{10000}" }] } });
    expect(await one(answering("abc\uE000z", budget))).toMatchObject({ result: { content: [{ text: "abc\uE000" }] } });
  });
});

describe("DispatchSlots", () => {
  it("a released slot is free again when nobody waits: a limit of one serves calls one after another", async () => {
    const slots = new DispatchSlots(1);
    const signal = new AbortController().signal;
    for (let call = 0; call < 3; call++) {
      expect(await slots.acquire(signal)).toBe(true);
      slots.release();
    }
  });

  it("an aborted signal gets no slot, even a free one", async () => {
    const controller = new AbortController();
    controller.abort("stop");
    expect(await new DispatchSlots(2).acquire(controller.signal)).toBe(false);
  });

  it("a waiter that aborts gives up its place: the slot goes to the next", async () => {
    const slots = new DispatchSlots(1);
    const free = new AbortController().signal;
    expect(await slots.acquire(free)).toBe(true);
    const leaving = new AbortController();
    const first = slots.acquire(leaving.signal);
    const second = slots.acquire(free);
    leaving.abort("stop");
    expect(await first).toBe(false);
    slots.release();
    expect(await second).toBe(true);
  });

  it("a waiter leaves no listener on its signal, whether it was granted a slot or gave up its place", async () => {
    const slots = new DispatchSlots(1);
    expect(await slots.acquire(new AbortController().signal)).toBe(true);
    const granted = new AbortController();
    const leaving = new AbortController();
    const first = slots.acquire(granted.signal);
    const second = slots.acquire(leaving.signal);
    const listeners = () => [granted.signal, leaving.signal].map((signal) => getEventListeners(signal, "abort").length);
    expect(listeners()).toEqual([1, 1]);
    slots.release();
    expect(await first).toBe(true);
    leaving.abort("stop");
    expect(await second).toBe(false);
    expect(listeners()).toEqual([0, 0]);
  });
});

describe("conflicts: defaults and the overlap rule", () => {
  it("a call without an access set: `none` reads everything, any other class writes everything", () => {
    expect(defaultAccess("none")).toEqual({ reads: [ALL_RESOURCES], writes: [] });
    expect(defaultAccess("idempotent")).toEqual({ reads: [], writes: [ALL_RESOURCES] });
    expect(conflicts(defaultAccess("reversible"), { reads: ["ledger"], writes: [] })).toBe(true);
    expect(conflicts(defaultAccess("none"), { reads: [], writes: ["ledger"] })).toBe(true);
    expect(conflicts(defaultAccess("none"), { reads: ["ledger"], writes: [] })).toBe(false);
  });

  it("a declared `*` is every resource; sets overlap when any one resource is shared", () => {
    expect(ALL_RESOURCES).toBe("*");
    expect(conflicts({ reads: [], writes: ["*"] }, { reads: ["anything"], writes: [] })).toBe(true);
    expect(conflicts({ reads: [], writes: ["a", "b"] }, { reads: ["b"], writes: [] })).toBe(true);
    expect(conflicts({ reads: [], writes: ["a", "b"] }, { reads: ["c"], writes: [] })).toBe(false);
  });
});
