// The whole action state machine as a table: every (state, event) pair, written out by hand
// from the diagram in actions.ts, not derived from the code it checks. A pair the table does
// not list as legal must be refused with the machine's reason.
import { describe, expect, it } from "vitest";
import { ACTION_EVENT_TYPES, ACTION_STATES, transitionAction, type ActionState, type ActionStatus, type ActionTransitionInput } from "./actions.js";
import { YokeError } from "./errors.js";
import { GENESIS_HASH } from "./events.js";
import { reduceRun } from "./run-state.js";
import { eventsOf, toolUse } from "./__fixtures__/events-of.js";

/** A row of the table: a state (with its retry flag where it matters), or no action yet. */
type Row = "none" | Exclude<ActionState, "failed"> | "failed(retryable)" | "failed(final)";
const ROWS: readonly Row[] = ["none", ...ACTION_STATES.flatMap((state): Row[] => (state === "failed" ? ["failed(retryable)", "failed(final)"] : [state]))];

/** A column: one event, with the payload that matters to the machine. */
type Column =
  | Exclude<(typeof ACTION_EVENT_TYPES)[number], "action.leased" | "action.failed" | "action.reconciled">
  | "action.leased(next)"
  | "action.leased(skip)"
  | "action.leased(same)"
  | "action.failed(retryable)"
  | "action.failed(final)"
  | "action.reconciled(applied)"
  | "action.reconciled(not_applied)"
  | "action.reconciled(retry_safe)"
  | "action.reconciled(unknown)";

const ATTEMPT = 2; // attempts leased before the row's state (rows after admission)

const INPUTS: Record<Column, ActionTransitionInput> = {
  "action.admitted": { type: "action.admitted" },
  "action.proposed": { type: "action.proposed" },
  "action.validated": { type: "action.validated" },
  "action.approval_requested": { type: "action.approval_requested" },
  "action.authorized": { type: "action.authorized" },
  "action.leased(next)": { type: "action.leased", attempt: ATTEMPT + 1 },
  "action.leased(skip)": { type: "action.leased", attempt: ATTEMPT + 2 },
  "action.leased(same)": { type: "action.leased", attempt: ATTEMPT },
  "action.executing": { type: "action.executing" },
  "action.committed": { type: "action.committed" },
  "action.uncertain": { type: "action.uncertain" },
  "action.failed(retryable)": { type: "action.failed", retryable: true },
  "action.failed(final)": { type: "action.failed", retryable: false },
  "action.reconciled(applied)": { type: "action.reconciled", verdict: "applied" },
  "action.reconciled(not_applied)": { type: "action.reconciled", verdict: "not_applied" },
  "action.reconciled(retry_safe)": { type: "action.reconciled", verdict: "retry_safe" },
  "action.reconciled(unknown)": { type: "action.reconciled", verdict: "unknown" },
  "action.compensating": { type: "action.compensating" },
  "action.compensated": { type: "action.compensated" },
  "action.compensation_failed": { type: "action.compensation_failed" },
};
const COLUMNS = Object.keys(INPUTS) as Column[];

const status = (state: ActionState, attempt = ATTEMPT, retryable = false): ActionStatus => ({ state, attempt, retryable });
const before = (row: Row): ActionStatus | undefined =>
  row === "none" ? undefined : row === "failed(retryable)" ? status("failed", ATTEMPT, true) : row === "failed(final)" ? status("failed") : status(row);

/** Every legal pair and the status it leads to. Everything else is illegal. */
const LEGAL: Partial<Record<Row, Partial<Record<Column, ActionStatus>>>> = {
  none: {
    "action.admitted": status("executing", 1),
    "action.proposed": status("proposed", 0),
    "action.approval_requested": status("awaiting_approval", 0),
  },
  proposed: {
    "action.validated": status("validated"),
    "action.failed(retryable)": status("failed", ATTEMPT, true),
    "action.failed(final)": status("failed"),
  },
  validated: {
    "action.authorized": status("authorized"),
    "action.failed(retryable)": status("failed", ATTEMPT, true),
    "action.failed(final)": status("failed"),
  },
  awaiting_approval: {
    "action.authorized": status("authorized"),
    "action.failed(retryable)": status("failed", ATTEMPT, true),
    "action.failed(final)": status("failed"),
  },
  authorized: {
    "action.leased(next)": status("leased", ATTEMPT + 1),
    "action.failed(retryable)": status("failed", ATTEMPT, true),
    "action.failed(final)": status("failed"),
  },
  leased: {
    "action.executing": status("executing"),
    "action.failed(retryable)": status("failed", ATTEMPT, true),
    "action.failed(final)": status("failed"),
  },
  executing: {
    "action.committed": status("committed"),
    "action.uncertain": status("uncertain"),
    "action.failed(retryable)": status("failed", ATTEMPT, true),
    "action.failed(final)": status("failed"),
  },
  uncertain: {
    "action.reconciled(applied)": status("committed"),
    "action.reconciled(not_applied)": status("authorized"),
    "action.reconciled(retry_safe)": status("authorized"),
    "action.reconciled(unknown)": status("uncertain"),
  },
  "failed(retryable)": {
    "action.leased(next)": status("leased", ATTEMPT + 1),
  },
  committed: {
    "action.compensating": status("compensating"),
  },
  compensating: {
    "action.compensated": status("compensated"),
    "action.compensation_failed": status("compensation_failed"),
  },
};

/** The reason the machine gives for an illegal pair. */
function reasonFor(row: Row, column: Column): string {
  const input = INPUTS[column];
  // With an action, a lease naming any attempt but the next is refused for that, whatever the state.
  if (row !== "none" && input.type === "action.leased" && input.attempt !== ATTEMPT + 1) {
    return `action.leased names attempt ${input.attempt}; the next attempt is ${ATTEMPT + 1}`;
  }
  const state = row === "none" ? "none" : row.startsWith("failed") ? "failed" : row;
  return `${input.type} is not legal in state ${state}`;
}

const PAIRS = ROWS.flatMap((row) => COLUMNS.map((column) => [row, column] as const));

describe("transitionAction: the state × event table", () => {
  it("covers every state and every event type", () => {
    expect(new Set(ROWS.filter((row) => row !== "none").map((row) => (row.startsWith("failed") ? "failed" : row)))).toEqual(new Set(ACTION_STATES));
    expect(new Set(Object.values(INPUTS).map((input) => input.type))).toEqual(new Set(ACTION_EVENT_TYPES));
    for (const [row, legal] of Object.entries(LEGAL)) {
      expect(ROWS).toContain(row);
      for (const column of Object.keys(legal!)) expect(COLUMNS).toContain(column);
    }
    expect(PAIRS).toHaveLength(14 * 20);
  });

  it.each(PAIRS)("%s + %s", (row, column) => {
    const result = transitionAction(before(row), INPUTS[column]);
    const next = LEGAL[row]?.[column];
    if (next !== undefined) {
      expect(result).toEqual({ ok: true, status: next });
    } else {
      expect(result).toEqual({ ok: false, reason: reasonFor(row, column) });
    }
  });

  it("never changes the status it was given", () => {
    for (const [row, column] of PAIRS) {
      const given = before(row);
      const copy = given === undefined ? undefined : { ...given };
      transitionAction(given === undefined ? undefined : Object.freeze(given), INPUTS[column]);
      expect(given).toEqual(copy);
    }
  });
});

describe("the run-state fold refuses every illegal event after a commit with ACTION_TRANSITION_ILLEGAL", () => {
  // Two calls, the second still executing, so the run stays in tools_pending after the first commits.
  const response = toolUse(["call_1", "pay"], ["call_2", "book"]);
  const committed = [
    {
      type: "run.started",
      data: { sessionId: "session_1", task: "t", tools: [], limits: { maxTurns: 3 }, release: { runtime: "test", eventSchemaVersion: 1 } },
    },
    { type: "turn.started", data: { turnId: "turn_1", index: 1 } },
    { type: "model.requested", data: { turnId: "turn_1", requestHash: GENESIS_HASH, messageCount: 1 } },
    { type: "model.responded", data: { turnId: "turn_1", response, latencyMs: 0 } },
    { type: "action.proposed", data: { turnId: "turn_1", toolCallId: "call_1", toolName: "pay", actionId: "action_1", input: {}, sideEffect: "irreversible" } },
    { type: "action.validated", data: { actionId: "action_1" } },
    { type: "action.authorized", data: { actionId: "action_1", decision: "allow", rule: "default" } },
    { type: "action.leased", data: { actionId: "action_1", attemptId: "action_1_1", attempt: 1, deadlineAt: 0 } },
    { type: "action.executing", data: { actionId: "action_1", attemptId: "action_1_1" } },
    { type: "action.proposed", data: { turnId: "turn_1", toolCallId: "call_2", toolName: "book", actionId: "action_2", input: {}, sideEffect: "reversible" } },
    { type: "action.validated", data: { actionId: "action_2" } },
    { type: "action.authorized", data: { actionId: "action_2", decision: "allow", rule: "default" } },
    { type: "action.leased", data: { actionId: "action_2", attemptId: "action_2_1", attempt: 1, deadlineAt: 0 } },
    { type: "action.executing", data: { actionId: "action_2", attemptId: "action_2_1" } },
    {
      type: "action.committed",
      data: {
        actionId: "action_1",
        attemptId: "action_1_1",
        result: { status: "ok", content: [{ type: "text", text: "paid" }], timing: { startedAt: 0, endedAt: 0, durationMs: 0 } },
      },
    },
  ];
  const after: Array<[string, { type: string; data: Record<string, unknown> }]> = [
    ["executing", { type: "action.executing", data: { actionId: "action_1", attemptId: "action_1_1" } }],
    ["leased", { type: "action.leased", data: { actionId: "action_1", attemptId: "action_1_2", attempt: 2, deadlineAt: 0 } }],
    ["validated", { type: "action.validated", data: { actionId: "action_1" } }],
    ["compensated", { type: "action.compensated", data: { actionId: "action_1" } }],
  ];

  it("folds the committed action", () => {
    const state = reduceRun(eventsOf(committed));
    expect(state.phase).toBe("tools_pending");
    expect(state.actions.map((action) => action.status.state)).toEqual(["committed", "executing"]);
  });

  it.each(after)("committed → %s", (_label, event) => {
    let caught: unknown;
    try {
      reduceRun(eventsOf([...committed, event]));
    } catch (error) {
      caught = error;
    }
    expect(YokeError.hasCode(caught, "ACTION_TRANSITION_ILLEGAL")).toBe(true);
    expect((caught as YokeError).details).toMatchObject({ seq: committed.length, type: event.type, actionId: "action_1" });
  });
});
