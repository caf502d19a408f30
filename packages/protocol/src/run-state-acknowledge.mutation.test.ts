// run-state.ts `acknowledge`: a head of another length is refused with an error that says both lengths.
import { describe, expect, it } from "vitest";
import { YokeError } from "./errors.js";
import { GENESIS_HASH } from "./events.js";
import { RunStateAccumulator } from "./run-state.js";
import { eventsOf } from "./__fixtures__/events-of.js";

const head = [
  { type: "run.started", data: { sessionId: "session_1", task: "t", tools: [], limits: { maxTurns: 3 }, release: { runtime: "test", eventSchemaVersion: 1 } } },
  { type: "turn.started", data: { turnId: "turn_1", index: 1 } },
];

const refusal = (accumulator: RunStateAccumulator, length: number): YokeError => {
  try {
    accumulator.acknowledge({ length, hash: GENESIS_HASH });
  } catch (error) {
    if (YokeError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("acknowledge did not refuse");
};

describe("RunStateAccumulator.acknowledge's refusal", () => {
  it("before anything is folded: the folded length is 0", () => {
    const error = refusal(new RunStateAccumulator(), 0);
    expect(error.code).toBe("INTERNAL");
    expect(error.message).toBe("acknowledged head 0 is not the folded length 0");
    expect(error.details).toEqual({ length: 0, folded: 0 });
  });

  it("after two events: both lengths, in the message and the details", () => {
    const accumulator = new RunStateAccumulator();
    for (const event of eventsOf(head)) accumulator.apply(event);
    const error = refusal(accumulator, 3);
    expect(error.message).toBe("acknowledged head 3 is not the folded length 2");
    expect(error.details).toEqual({ length: 3, folded: 2 });
  });
});
