import { describe, expect, it } from "vitest";
import { YokeError } from "./errors.js";
import { GENESIS_HASH } from "./events.js";
import { reduceRun } from "./run-state.js";
import { parseDelegation } from "./delegation.js";
import { eventsOf } from "./__fixtures__/events-of.js";

const started = {
  type: "run.started",
  data: { sessionId: "session_1", task: "pay the rent", tools: [], limits: { maxTurns: 3 }, release: { runtime: "test", eventSchemaVersion: 1 } },
};
const delegation = { source: "application", grants: [{ grantId: "rent", tools: ["pay"], max: 1 }] };
const delegated = { type: "run.delegated", data: { delegation } };
const turn = { type: "turn.started", data: { turnId: "turn_1", index: 1 } };
const requested = { type: "model.requested", data: { turnId: "turn_1", requestHash: GENESIS_HASH, messageCount: 1 } };

function foldError(events: readonly unknown[]): unknown {
  try {
    reduceRun(eventsOf(events as never));
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("the fold of a run's delegation", () => {
  it("keeps the journaled delegation with nothing spent; a run without one has none", () => {
    expect(reduceRun(eventsOf([started, delegated, turn, requested] as never)).delegation).toEqual({ delegation, used: {}, parked: {} });
    expect(reduceRun(eventsOf([started, turn, requested] as never)).delegation).toBeUndefined();
  });

  it("refuses a second run.delegated, and one after the first turn started (EVENT_INVALID)", () => {
    for (const events of [
      [started, delegated, delegated],
      [started, turn, delegated],
    ]) {
      const error = foldError(events);
      expect(YokeError.hasCode(error, "EVENT_INVALID")).toBe(true);
    }
  });

  it("refuses a malformed delegation", () => {
    const error = foldError([started, { type: "run.delegated", data: { delegation: { source: "user", grants: [] } } }]);
    expect(YokeError.hasCode(error, "EVENT_INVALID")).toBe(true);
  });
});

describe("parseDelegation", () => {
  it("copies exactly its fields, and names the option and the problem otherwise (CONFIG_INVALID)", () => {
    expect(parseDelegation(delegation, "delegation")).toEqual(delegation);
    const bad = (() => {
      try {
        return parseDelegation({ source: "application", grants: [{ grantId: "rent", tools: ["pay"], max: 1.5 }] }, "delegation");
      } catch (error) {
        return error;
      }
    })();
    expect(YokeError.hasCode(bad, "CONFIG_INVALID")).toBe(true);
    expect((bad as YokeError).message).toContain("delegation.grants.0.max");
    expect((bad as YokeError).details).toEqual({ option: "delegation" });
  });
});
