import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { BudgetReservation, BudgetSettlement, ChargeAttribution } from "./budget.js";
import { budgetEntriesOf, compactReservation, compactSettlement } from "./budget-entries.js";
import { type JournalEvent, parseYokeEvent, type YokeEvent } from "./events.js";

const envelope = { schemaVersion: 1, tenantId: "t", seq: 4, at: 1, causationId: null, prevHash: "0".repeat(64), hash: "0".repeat(64) };
/** A stored event of any data (parseYokeEvent checks it). */
const stored = (event: object) => event as JournalEvent;

/** A carrier event of `type` for run `runId` whose data holds `ids` and carries `member` (parsed: the schema must take it). */
function carrier(type: "model.requested" | "action.executing" | "verifier.started", runId: string, ids: Record<string, string>, reserved: unknown): YokeEvent {
  const data =
    type === "model.requested"
      ? { turnId: ids.turnId ?? "turn_1", requestHash: "a".repeat(64), messageCount: 2, reserved }
      : type === "action.executing"
        ? { actionId: ids.actionId ?? "action_1", attemptId: ids.attemptId ?? "attempt_1", reserved }
        : { turnId: ids.turnId ?? "turn_1", verifierRunId: ids.verifierRunId ?? "verification_1", verifierId: "tests", attempt: 1, replaySafe: true, reserved };
  return parseYokeEvent(stored({ ...envelope, runId, type, data }));
}

const reservation = (attribution: ChargeAttribution): BudgetReservation => ({
  reservationId: "reservation_9",
  parentId: "reservation_1",
  amounts: { tokens: 1429, wall_time: 60_000 },
  attribution,
});

describe("budgetEntriesOf reads a carried reservation back whole", () => {
  it("leaves out the run and the carrier's ids, and gives them back", () => {
    const modelCall = reservation({ kind: "model_call", runId: "run_1", turnId: "turn_3" });
    const carried = compactReservation(modelCall, { runId: "run_1", data: { turnId: "turn_3" } });
    expect(carried.attribution).toEqual({ kind: "model_call" });
    expect(budgetEntriesOf(carrier("model.requested", "run_1", { turnId: "turn_3" }, carried))).toEqual([{ kind: "reserved", data: modelCall }]);

    const attempt = reservation({ kind: "tool_attempt", runId: "run_1", turnId: "turn_3", actionId: "action_5", attemptId: "attempt_5" });
    const onExecuting = compactReservation(attempt, { runId: "run_1", data: { actionId: "action_5", attemptId: "attempt_5" } });
    // action.executing holds no turn: the attribution keeps its own.
    expect(onExecuting.attribution).toEqual({ kind: "tool_attempt", turnId: "turn_3" });
    expect(budgetEntriesOf(carrier("action.executing", "run_1", { actionId: "action_5", attemptId: "attempt_5" }, onExecuting))).toEqual([
      { kind: "reserved", data: attempt },
    ]);

    const verifier = reservation({ kind: "verifier", runId: "run_1", turnId: "turn_3", verifierRunId: "verification_2", note: "gate" });
    const onStarted = compactReservation(verifier, { runId: "run_1", data: { turnId: "turn_3", verifierRunId: "verification_2" } });
    expect(onStarted.attribution).toEqual({ kind: "verifier", note: "gate" });
    expect(budgetEntriesOf(carrier("verifier.started", "run_1", { turnId: "turn_3", verifierRunId: "verification_2" }, onStarted))[0]?.data).toEqual(verifier);
  });

  it("leaves out an attribution of nothing but the kind of work its carrier starts, and gives it back", () => {
    const modelCall = reservation({ kind: "model_call", runId: "run_1", turnId: "turn_3" });
    const onRequested = compactReservation(modelCall, { type: "model.requested", runId: "run_1", data: { turnId: "turn_3" } });
    expect(onRequested).toEqual({ amounts: modelCall.amounts, parentId: "reservation_1", reservationId: "reservation_9" });
    expect(Object.keys(onRequested)).toEqual(["amounts", "parentId", "reservationId"]);
    expect(budgetEntriesOf(carrier("model.requested", "run_1", { turnId: "turn_3" }, onRequested))).toEqual([{ kind: "reserved", data: modelCall }]);

    const attempt = reservation({ kind: "tool_attempt", runId: "run_1", actionId: "action_5", attemptId: "attempt_5" });
    const onExecuting = compactReservation(attempt, { type: "action.executing", runId: "run_1", data: { actionId: "action_5", attemptId: "attempt_5" } });
    expect(onExecuting).not.toHaveProperty("attribution");
    expect(budgetEntriesOf(carrier("action.executing", "run_1", { actionId: "action_5", attemptId: "attempt_5" }, onExecuting))[0]?.data).toEqual(attempt);

    const verifier = reservation({ kind: "verifier", runId: "run_1", turnId: "turn_3", verifierRunId: "verification_2" });
    const ids = { turnId: "turn_3", verifierRunId: "verification_2" };
    const onStarted = compactReservation(verifier, { type: "verifier.started", runId: "run_1", data: ids });
    expect(onStarted).not.toHaveProperty("attribution");
    expect(budgetEntriesOf(carrier("verifier.started", "run_1", ids, onStarted))[0]?.data).toEqual(verifier);
  });

  it("keeps the attribution when it says more than its carrier's kind: another kind, a note, a discarded flag, an id the carrier lacks", () => {
    const ids = { actionId: "action_5", attemptId: "attempt_5" };
    const cases: [ChargeAttribution, Record<string, unknown>][] = [
      [{ kind: "compensation", runId: "run_1", ...ids }, { kind: "compensation" }],
      [
        { kind: "tool_attempt", runId: "run_1", ...ids, note: "retry" },
        { kind: "tool_attempt", note: "retry" },
      ],
      [
        { kind: "tool_attempt", runId: "run_1", ...ids, discarded: true },
        { discarded: true, kind: "tool_attempt" },
      ],
      [
        { kind: "tool_attempt", runId: "run_1", ...ids, turnId: "turn_3" },
        { kind: "tool_attempt", turnId: "turn_3" },
      ],
      [
        { kind: "tool_attempt", runId: "run_1", ...ids, childRunId: "run_child" },
        { childRunId: "run_child", kind: "tool_attempt" },
      ],
    ];
    for (const [attribution, left] of cases) {
      const whole = reservation(attribution);
      const carried = compactReservation(whole, { type: "action.executing", runId: "run_1", data: ids });
      expect(carried.attribution).toEqual(left);
      expect(budgetEntriesOf(carrier("action.executing", "run_1", ids, carried))[0]?.data).toEqual(whole);
    }
  });

  it("takes a reservation without attribution on a carrier only: budget.reserved must name its work", () => {
    const bare = { reservationId: "reservation_9", parentId: "reservation_1", amounts: { tool_ops: 1 } };
    expect(() => carrier("action.executing", "run_1", {}, bare)).not.toThrow();
    expect(() => parseYokeEvent(stored({ ...envelope, runId: "run_1", type: "budget.reserved", data: bare }))).toThrow();
  });

  it("keeps the whole reservation when leaving ids out could not be read back exactly", () => {
    // Another run's attribution, an id that differs from the carrier's, an id the carrier has and the attribution lacks.
    const otherRun = reservation({ kind: "model_call", runId: "run_parent", turnId: "turn_3" });
    const otherTurn = reservation({ kind: "model_call", runId: "run_1", turnId: "turn_2" });
    const noTurn = reservation({ kind: "model_call", runId: "run_1" });
    for (const whole of [otherRun, otherTurn, noTurn]) {
      const carried = compactReservation(whole, { runId: "run_1", data: { turnId: "turn_3" } });
      expect(carried).toBe(whole);
      expect(budgetEntriesOf(carrier("model.requested", "run_1", { turnId: "turn_3" }, carried))[0]?.data).toEqual(whole);
    }
  });

  it("reads a journal written before the carried form (whole attributions) as it is", () => {
    const whole = reservation({ kind: "model_call", runId: "run_1", turnId: "turn_3" });
    const [entry] = budgetEntriesOf(carrier("model.requested", "run_1", { turnId: "turn_3" }, whole));
    expect(entry?.data).toEqual(whole);
  });

  it("round-trips any attribution on any carrier, and leaves out every id the carrier holds alike", () => {
    const id = (prefix: string) => fc.constantFrom(`${prefix}_1`, `${prefix}_2`);
    const attribution = fc.record(
      {
        kind: fc.constantFrom("run", "model_call", "tool_attempt", "verifier", "subagent", "compensation", "reconciliation", "other"),
        runId: id("run"),
        turnId: id("turn"),
        actionId: id("action"),
        attemptId: id("attempt"),
        verifierRunId: id("verification"),
        childRunId: id("run_child"),
        discarded: fc.boolean(),
        note: fc.string({ maxLength: 4 }),
      },
      { requiredKeys: ["kind", "runId"] },
    );
    const ids = fc.record({ turnId: id("turn"), actionId: id("action"), attemptId: id("attempt"), verifierRunId: id("verification") });
    fc.assert(
      fc.property(
        attribution,
        fc.constantFrom("model.requested", "action.executing", "verifier.started"),
        ids,
        id("run"),
        fc.boolean(),
        (made, type, held, runId, typed) => {
          const whole = reservation(made as ChargeAttribution);
          // What the carrier of `type` holds, of `held`.
          const data: Record<string, string> =
            type === "model.requested"
              ? { turnId: held.turnId }
              : type === "action.executing"
                ? { actionId: held.actionId, attemptId: held.attemptId }
                : { turnId: held.turnId, verifierRunId: held.verifierRunId };
          const carried = compactReservation(whole, typed ? { type, runId, data } : { runId, data });
          const [entry] = budgetEntriesOf(carrier(type, runId, data, carried));
          expect(entry).toEqual({ kind: "reserved", data: whole });
          const readable =
            whole.attribution.runId === runId && Object.entries(data).every(([key, value]) => whole.attribution[key as keyof ChargeAttribution] === value);
          if (!readable) expect(carried).toBe(whole);
          else if (carried.attribution === undefined) {
            // Left out only given the carrier's type, and only when the whole attribution is that kind, the run and the carrier's ids.
            expect(typed).toBe(true);
            expect(whole.attribution).toEqual({
              kind: { "model.requested": "model_call", "action.executing": "tool_attempt", "verifier.started": "verifier" }[type],
              runId,
              ...data,
            });
          } else for (const key of ["runId", ...Object.keys(data)]) expect(carried.attribution).not.toHaveProperty(key);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe("budgetEntriesOf and a carried settlement", () => {
  it("leaves `released` out (held less charged: the ledger works it out) and reads the rest as it is", () => {
    const settled: BudgetSettlement = { reservationId: "reservation_9", charged: { tool_ops: 1, wall_time: 6 }, released: { concurrency: 1 }, overshoot: true };
    const carried = compactSettlement(settled);
    expect(carried).toEqual({ reservationId: "reservation_9", charged: { tool_ops: 1, wall_time: 6 }, overshoot: true });
    const event = parseYokeEvent(
      stored({
        ...envelope,
        runId: "run_1",
        type: "action.uncertain",
        data: { actionId: "action_1", attemptId: "attempt_1", reason: "cut", settled: carried },
      }),
    );
    expect(budgetEntriesOf(event)).toEqual([{ kind: "settled", data: carried }]);
    // A `budget.settled` of its own still journals `released`.
    expect(() => parseYokeEvent(stored({ ...envelope, runId: "run_1", type: "budget.settled", data: carried }))).toThrow(/released/);
  });
});
