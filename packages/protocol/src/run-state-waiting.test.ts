import { describe, expect, it } from "vitest";
import { YokeError } from "./errors.js";
import { GENESIS_HASH, parseYokeEvent } from "./events.js";
import { reduceRun } from "./run-state.js";
import { eventsOf } from "./__fixtures__/events-of.js";

const started = {
  type: "run.started",
  data: {
    sessionId: "session_1",
    task: "summarize the report",
    tools: [],
    limits: { maxTurns: 3 },
    release: { runtime: "test", eventSchemaVersion: 1 },
  },
};
const refusal = {
  provider: "scripted",
  model: "scripted-1",
  stopReason: "refusal",
  usage: { inputTokens: 0, outputTokens: 0 },
  content: [{ type: "refusal", text: "I can't help with that." }],
};
const responded = [
  started,
  { type: "budget.opened", data: { budgetId: "reservation_root", limits: { tokens: 1_000, spend: 5_000 } } },
  { type: "turn.started", data: { turnId: "turn_1", index: 1 } },
  {
    type: "budget.reserved",
    data: {
      reservationId: "reservation_1",
      parentId: "reservation_root",
      amounts: { tokens: 600 },
      attribution: { kind: "model_call", runId: "run_1", turnId: "turn_1" },
    },
  },
  { type: "model.requested", data: { turnId: "turn_1", requestHash: GENESIS_HASH, messageCount: 1 } },
  { type: "model.responded", data: { turnId: "turn_1", response: refusal, latencyMs: 0 } },
  { type: "budget.settled", data: { reservationId: "reservation_1", charged: { tokens: 40 }, released: { tokens: 560 } } },
];
const waiting = { type: "run.waiting", data: { turnId: "turn_1", kind: "refusal", reason: "I can't help with that." } };

describe("run.waiting, budget and verifier events in the fold", () => {
  it("a run waits for a person until input lands, and the budget events change no state", () => {
    const parked = reduceRun(eventsOf([...responded, waiting]));
    expect(parked.waiting).toEqual({ kind: "refusal", reason: "I can't help with that.", turnId: "turn_1" });
    expect(parked.phase).toBe("responded");
    expect(reduceRun(eventsOf(responded)).waiting).toBeUndefined();

    const resumed = reduceRun(
      eventsOf([...responded, waiting, { type: "input.added", data: { source: "operator", content: [{ type: "text", text: "It is my own report." }] } }]),
    );
    expect(resumed.waiting).toBeUndefined();
    expect(resumed.phase).toBe("ready");
    expect(resumed.messages.at(-1)).toEqual({ role: "user", content: [{ type: "text", text: "It is my own report." }] });
  });

  it("a run that ends while waiting is no longer waiting", () => {
    const ended = reduceRun(
      eventsOf([...responded, waiting, { type: "run.completed", data: { outcome: { status: "refused", reason: "the person closed it" }, turns: 1 } }]),
    );
    expect(ended.waiting).toBeUndefined();
    expect(ended.outcome).toEqual({ status: "refused", reason: "the person closed it" });
  });

  it("a verifier runs only on an answer (phase responded), never while tools are pending or before a response", () => {
    const verifierStarted = {
      type: "verifier.started",
      data: { turnId: "turn_1", verifierRunId: "verification_1", verifierId: "tests-pass", attempt: 1, replaySafe: true },
    };
    expect(reduceRun(eventsOf([...responded, verifierStarted])).phase).toBe("responded");
    const early = [started, { type: "turn.started", data: { turnId: "turn_1", index: 1 } }, verifierStarted];
    expect(() => reduceRun(eventsOf(early))).toThrow(YokeError);
  });

  it("a child run names its parent, and budget dimensions beyond the old five are outcomes", () => {
    const child = reduceRun(eventsOf([{ ...started, data: { ...started.data, parent: { runId: "run_0", actionId: "action_7", contextRevision: 4 } } }]));
    expect(child.parent).toEqual({ runId: "run_0", actionId: "action_7", contextRevision: 4 });
    const [completed] = eventsOf([
      { type: "run.completed", data: { outcome: { status: "budget_exhausted", budget: "fan_out", limit: 8, reservationId: "reservation_root" }, turns: 2 } },
    ]);
    expect(parseYokeEvent(completed!).type).toBe("run.completed");
  });

  it("an amount that is not a non-negative integer is refused", () => {
    const [reserved] = eventsOf([
      { type: "budget.reserved", data: { reservationId: "r", parentId: "p", amounts: { spend: 0.5 }, attribution: { kind: "run", runId: "run_1" } } },
    ]);
    expect(() => parseYokeEvent(reserved!)).toThrow(YokeError);
  });
});
