// Survivors of `pnpm mutate protocol` in the fold's entry checks (run-state.ts apply): a
// journal with a gap or a repeat in its sequence numbers, a second run.started, or an event
// after run.completed must be refused, never folded into a state.
import { describe, expect, it } from "vitest";
import { YokeError } from "./errors.js";
import { GENESIS_HASH } from "./events.js";
import { reduceRun } from "./run-state.js";
import { eventsOf } from "./__fixtures__/events-of.js";

const started = {
  type: "run.started",
  data: { sessionId: "session_1", task: "t", tools: [], limits: { maxTurns: 3 }, release: { runtime: "test", eventSchemaVersion: 1 } },
};
const turn = { type: "turn.started", data: { turnId: "turn_1", index: 1 } };
const requested = { type: "model.requested", data: { turnId: "turn_1", requestHash: GENESIS_HASH, messageCount: 1 } };

function refusal(run: () => unknown): YokeError {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(YokeError.hasCode(caught, "EVENT_INVALID"), `expected EVENT_INVALID, got ${String(caught)}`).toBe(true);
  return caught as YokeError;
}

describe("the fold refuses a journal that is not one run in order", () => {
  it("folds a well-formed prefix", () => {
    expect(reduceRun(eventsOf([started, turn, requested])).length).toBe(3);
  });

  it("refuses a gap and a repeat in the sequence numbers", () => {
    const [first, second, third] = eventsOf([started, turn, requested]);
    expect(refusal(() => reduceRun([first!, third!])).details).toMatchObject({ seq: 2 });
    expect(refusal(() => reduceRun([first!, second!, { ...second!, type: requested.type, data: requested.data }])).message).toContain("expected sequence 2");
  });

  it("refuses a second run.started", () => {
    const events = eventsOf([started, turn, started]);
    expect(refusal(() => reduceRun(events)).message).toContain("run.started after the start");
  });

  it("refuses any event after run.completed", () => {
    const completed = { type: "run.completed", data: { outcome: { status: "completed" }, turns: 0 } };
    expect(reduceRun(eventsOf([started, completed])).phase).toBe("finished");
    expect(refusal(() => reduceRun(eventsOf([started, completed, turn]))).message).toContain("event after run.completed");
  });
});
