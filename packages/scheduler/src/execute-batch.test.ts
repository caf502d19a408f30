import { YokeError, steppingClock, type SideEffectClass, type AnyToolDeclaration } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { manualTimers, neverTimers } from "./__fixtures__/manual-timers.js";
import { declaration } from "./__fixtures__/tools.js";
import { executeBatch, type DispatchItem } from "./execute-batch.js";

const clock = steppingClock(0, 0);
const item = (tool: AnyToolDeclaration, index = 0): DispatchItem => ({
  tool,
  input: {},
  actionId: `action_${index}`,
  attemptId: `attempt_${index}`,
  attempt: 1,
  deadlineAt: 100,
});
/** A handler that never settles on its own: only its signal ends it. */
const hangs = (sideEffect: SideEffectClass) =>
  declaration({
    name: `hangs_${sideEffect}`,
    sideEffect,
    access: () => ({ reads: [], writes: [`own:${sideEffect}`] }),
    execute: (_input, { signal }) => new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason))),
  });

describe("executeBatch outcomes", () => {
  it("a returned value commits, with the receipt and the output budget applied", async () => {
    const tool = declaration({ name: "t", outputBudget: 3, execute: async () => ({ content: "abcdef", receipt: { id: 7 } }) });
    const [outcome] = await executeBatch([item(tool)], { clock, timers: neverTimers });
    expect(outcome).toMatchObject({
      kind: "committed",
      receipt: { id: 7 },
      result: { status: "ok", content: [{ text: "abc" }], truncation: { originalBytes: 6, keptBytes: 3 } },
    });
  });

  it("the output budget never cuts a surrogate pair in half", async () => {
    const tool = declaration({ name: "t", outputBudget: 3, execute: async () => "ab😀cd" });
    const [outcome] = await executeBatch([item(tool)], { clock, timers: neverTimers });
    expect(outcome).toMatchObject({ kind: "committed", result: { content: [{ text: "ab" }], truncation: { originalBytes: 8, keptBytes: 2 } } });
  });

  it("structured output that fails the output schema becomes TOOL_OUTPUT_INVALID", async () => {
    const tool = declaration({ name: "t", output: z.object({ n: z.number() }), execute: async () => ({ content: "x", output: { n: "no" } }) });
    const [outcome] = await executeBatch([item(tool)], { clock, timers: neverTimers });
    expect(outcome?.kind === "committed" && outcome.result.error?.code).toBe("TOOL_OUTPUT_INVALID");
  });

  it("a throw is a definite failure; TOOL_OUTCOME_UNKNOWN from a tool with effects is uncertain", async () => {
    const own = (resource: string) => () => ({ reads: [], writes: [resource] });
    const plain = declaration({
      name: "a",
      sideEffect: "irreversible",
      access: own("a"),
      execute: async () => {
        throw new Error("card declined");
      },
    });
    const lost = declaration({
      name: "b",
      sideEffect: "irreversible",
      access: own("b"),
      execute: async () => {
        throw new YokeError("TOOL_OUTCOME_UNKNOWN", "ack lost");
      },
    });
    const retryable = declaration({
      name: "c",
      sideEffect: "idempotent",
      access: own("c"),
      execute: async () => {
        throw new YokeError("PROVIDER_UNAVAILABLE", "503");
      },
    });
    const outcomes = await executeBatch([item(plain, 0), item(lost, 1), item(retryable, 2)], { clock, timers: neverTimers });
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(["failed", "uncertain", "failed"]);
    expect(outcomes[0]).toMatchObject({ retryable: false, dispatched: true, result: { error: { code: "TOOL_FAILED", message: "card declined" } } });
    expect(outcomes[2]).toMatchObject({ retryable: true, dispatched: true });
  });

  it("a handler's SUBAGENT_FAILED or TOOL_INPUT_INVALID keeps its code in the result; any other code is TOOL_FAILED", async () => {
    const throwing = (name: string, code: "SUBAGENT_FAILED" | "TOOL_INPUT_INVALID" | "PROVIDER_REQUEST_INVALID") =>
      declaration({
        name,
        access: () => ({ reads: [], writes: [name] }),
        execute: async () => {
          throw new YokeError(code, `${name} refused`);
        },
      });
    const tools = [throwing("a", "SUBAGENT_FAILED"), throwing("b", "TOOL_INPUT_INVALID"), throwing("c", "PROVIDER_REQUEST_INVALID")];
    const outcomes = await executeBatch(
      tools.map((tool, index) => item(tool, index)),
      { clock, timers: neverTimers },
    );
    expect(outcomes.map((outcome) => outcome.kind === "failed" && [outcome.result.error?.code, outcome.retryable])).toEqual([
      ["SUBAGENT_FAILED", false],
      ["TOOL_INPUT_INVALID", false],
      ["TOOL_FAILED", false],
    ]);
  });

  it("a deadline after dispatch: uncertain for a tool with effects, TOOL_TIMEOUT for a `none` tool", async () => {
    const timers = manualTimers();
    const running = executeBatch([item(hangs("none"), 0), item(hangs("reversible"), 1)], { clock, timers });
    await Promise.resolve();
    await Promise.resolve();
    timers.fire();
    const outcomes = await running;
    expect(outcomes[0]).toMatchObject({ kind: "failed", dispatched: true, result: { error: { code: "TOOL_TIMEOUT" } } });
    expect(outcomes[1]).toMatchObject({ kind: "uncertain" });
    expect(timers.armed).toBe(0);
  });

  it("a deadline before dispatch (waiting on a conflicting write) fails retryably without running", async () => {
    const timers = manualTimers();
    let ran = false;
    const second = declaration({
      name: "second",
      sideEffect: "idempotent",
      execute: async () => {
        ran = true;
        return "ok";
      },
    });
    const running = executeBatch([item(hangs("idempotent"), 0), { ...item(second, 1), deadlineAt: 50 }], { clock, timers });
    timers.fire(50); // the second call's deadline only
    timers.fire();
    const outcomes = await running;
    expect(ran).toBe(false);
    expect(outcomes[1]).toMatchObject({ kind: "failed", dispatched: false, retryable: true, result: { error: { code: "TOOL_TIMEOUT" } } });
  });

  it("cancellation: before dispatch fails (CANCELLED, not dispatched); after dispatch of an effect is uncertain", async () => {
    const before = new AbortController();
    before.abort("stop");
    const [notRun] = await executeBatch([item(hangs("irreversible"))], { clock, timers: neverTimers, signal: before.signal });
    expect(notRun).toMatchObject({ kind: "failed", dispatched: false, retryable: false, result: { error: { code: "CANCELLED" } } });

    const during = new AbortController();
    const running = executeBatch([item(hangs("irreversible"))], { clock, timers: neverTimers, signal: during.signal });
    await Promise.resolve();
    during.abort("stop");
    expect((await running)[0]).toMatchObject({ kind: "uncertain", reason: expect.stringMatching(/cancelled while it ran/) });
  });
});

describe("executeBatch: a call waits for earlier conflicting calls to settle for good", () => {
  const writes = (resource: string) => () => ({ reads: [], writes: [resource] });
  const ran: string[] = [];
  const writer = (name: string, resource: string, fails?: YokeError) =>
    declaration({
      name,
      sideEffect: "idempotent",
      maxAttempts: 2,
      access: writes(resource),
      execute: async () => {
        ran.push(name);
        if (fails) throw fails;
        return "ok";
      },
    });
  const at = (tool: AnyToolDeclaration, index: number, attempt = 1): DispatchItem => ({ ...item(tool, index), attempt });

  it("after a failure that will be retried, or an uncertain outcome, later conflicting calls are deferred (not run); others run", async () => {
    ran.length = 0;
    const outcomes = await executeBatch(
      [
        at(writer("retried", "x", new YokeError("PROVIDER_UNAVAILABLE", "503")), 0),
        at(writer("after_retried", "x"), 1),
        at(writer("after_deferred", "x"), 2),
        at(writer("lost", "y", new YokeError("TOOL_OUTCOME_UNKNOWN", "ack lost")), 3),
        at(writer("after_lost", "y"), 4),
        at(writer("elsewhere", "z"), 5),
      ],
      { clock, timers: neverTimers },
    );
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(["failed", "deferred", "deferred", "uncertain", "deferred", "committed"]);
    expect(ran.sort()).toEqual(["elsewhere", "lost", "retried"]);
  });

  it("a failure for good (not retryable, or the last attempt) lets later conflicting calls run in the same round", async () => {
    ran.length = 0;
    const outcomes = await executeBatch(
      [
        at(writer("definite", "x", new YokeError("TOOL_FAILED", "no")), 0),
        at(writer("after_definite", "x"), 1),
        at(writer("last_attempt", "y", new YokeError("PROVIDER_UNAVAILABLE", "503")), 2, 2),
        at(writer("after_last_attempt", "y"), 3),
      ],
      { clock, timers: neverTimers },
    );
    expect(outcomes.map((outcome) => outcome.kind)).toEqual(["failed", "committed", "failed", "committed"]);
    expect(ran).toEqual(["definite", "last_attempt", "after_definite", "after_last_attempt"]);
  });
});

describe("executeBatch: maxConcurrent", () => {
  /** Handlers that count how many run at once; each yields a few times before it returns, so without a limit all would overlap. */
  function counted(count: number, access?: (index: number) => { reads: string[]; writes: string[] }) {
    const seen = { active: 0, peak: 0, order: [] as number[] };
    const items = Array.from({ length: count }, (_, index) => {
      const tool = declaration({
        name: `t${index}`,
        ...(access ? { sideEffect: "idempotent" as const, access: () => access(index) } : {}),
        execute: async () => {
          seen.order.push(index);
          seen.active += 1;
          seen.peak = Math.max(seen.peak, seen.active);
          for (let tick = 0; tick < 5; tick++) await Promise.resolve();
          seen.active -= 1;
          return "ok";
        },
      });
      return item(tool, index);
    });
    return { seen, items };
  }

  it("without a limit every independent handler overlaps; with one, at most that many, started in proposal order", async () => {
    const free = counted(40);
    await executeBatch(free.items, { clock, timers: neverTimers });
    expect(free.seen.peak).toBe(40);

    const limited = counted(40);
    const outcomes = await executeBatch(limited.items, { clock, timers: neverTimers, maxConcurrent: 8 });
    expect(outcomes.every((outcome) => outcome.kind === "committed")).toBe(true);
    expect(limited.seen.peak).toBe(8);
    expect(limited.seen.order).toEqual(Array.from({ length: 40 }, (_, index) => index));
  });

  it("conflicting calls still run in proposal order under the limit", async () => {
    // Even calls write x, odd calls write y: two chains, each serialized.
    const { seen, items } = counted(12, (index) => ({ reads: [], writes: [index % 2 === 0 ? "x" : "y"] }));
    await executeBatch(items, { clock, timers: neverTimers, maxConcurrent: 1 });
    expect(seen.peak).toBe(1);
    expect(seen.order.filter((index) => index % 2 === 0)).toEqual([0, 2, 4, 6, 8, 10]);
    expect(seen.order.filter((index) => index % 2 === 1)).toEqual([1, 3, 5, 7, 9, 11]);
  });

  it("a call waiting for a slot when the run is cancelled or its deadline passes is not dispatched", async () => {
    const timers = manualTimers();
    const controller = new AbortController();
    const waiting = declaration({ name: "waiting", execute: async () => "ran" });
    const running = executeBatch([item(hangs("none"), 0), { ...item(waiting, 1), deadlineAt: 50 }, item(waiting, 2)], {
      clock,
      timers,
      signal: controller.signal,
      maxConcurrent: 1,
    });
    timers.fire(50); // the second call's deadline, while it waits for the slot
    controller.abort("stop");
    const outcomes = await running;
    expect(outcomes[1]).toMatchObject({ kind: "failed", dispatched: false, retryable: true, result: { error: { code: "TOOL_TIMEOUT" } } });
    expect(outcomes[2]).toMatchObject({ kind: "failed", dispatched: false, retryable: false, result: { error: { code: "CANCELLED" } } });
    expect(timers.armed).toBe(0);
  });

  it("refuses a limit that is not a positive integer (CONFIG_INVALID)", () => {
    expect(() => executeBatch([], { clock, maxConcurrent: 0 })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
  });
});
