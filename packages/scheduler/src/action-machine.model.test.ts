// Model-based test of the action state machine as the scheduler journals it: whatever
// sequence of events, commits and crashes, no illegal transition reaches the journal, and
// the journal alone rebuilds the state the model expects.
import { YokeError, type ActionState, type ActionStatus, type ReconcileVerdict } from "@yoke/protocol";
import {
  ACTION_EVENT_TYPES,
  ACTION_STATES,
  RECONCILE_VERDICTS,
  transitionAction,
  type ActionEventType,
  type ActionTransitionInput,
} from "@yoke/protocol/journal-utils";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ActionBook, transitionInput, type ActionEventDraft } from "./action-book.js";

// The reference table, written out independently of `transitionAction`.
type Key = ActionState | "none";
const NEXT: Partial<Record<Key, Partial<Record<ActionEventType, ActionState>>>> = {
  none: { "action.proposed": "proposed", "action.admitted": "executing", "action.approval_requested": "awaiting_approval" },
  proposed: { "action.validated": "validated", "action.failed": "failed" },
  validated: { "action.authorized": "authorized", "action.failed": "failed" },
  awaiting_approval: { "action.authorized": "authorized", "action.failed": "failed" },
  authorized: { "action.leased": "leased", "action.failed": "failed" },
  leased: { "action.executing": "executing", "action.failed": "failed" },
  executing: { "action.committed": "committed", "action.uncertain": "uncertain", "action.failed": "failed" },
  uncertain: { "action.reconciled": "uncertain" },
  failed: { "action.leased": "leased" },
  committed: { "action.compensating": "compensating" },
  compensating: { "action.compensated": "compensated", "action.compensation_failed": "compensation_failed" },
};

function expected(status: ActionStatus | undefined, input: ActionTransitionInput): ActionStatus | undefined {
  let target = NEXT[status?.state ?? "none"]?.[input.type];
  if (target === undefined) return undefined;
  const attempt = status?.attempt ?? 0;
  if (input.type === "action.leased") {
    if (input.attempt !== attempt + 1) return undefined;
    if (status?.state === "failed" && !status.retryable) return undefined;
    return { state: "leased", attempt: input.attempt, retryable: false };
  }
  // Admitted: proposed → validated → authorized → leased (attempt 1) → executing at once.
  if (input.type === "action.admitted") return { state: "executing", attempt: 1, retryable: false };
  if (input.type === "action.reconciled") {
    target = input.verdict === "applied" ? "committed" : input.verdict === "unknown" ? "uncertain" : "authorized";
  }
  return { state: target, attempt, retryable: input.type === "action.failed" ? input.retryable : false };
}

const eventInput = (type: ActionEventType, attempt: number, retryable: boolean, verdict: ReconcileVerdict): ActionTransitionInput => {
  if (type === "action.leased") return { type, attempt };
  if (type === "action.failed") return { type, retryable };
  if (type === "action.reconciled") return { type, verdict };
  return { type } as ActionTransitionInput;
};

function draftFor(actionId: string, input: ActionTransitionInput): ActionEventDraft {
  const result = { status: "ok" as const, content: [], timing: { startedAt: 0, endedAt: 0, durationMs: 0 } };
  const data: Record<string, unknown> = { actionId, attemptId: "attempt_x" };
  switch (input.type) {
    case "action.proposed":
      Object.assign(data, { turnId: "turn_1", toolCallId: actionId, toolName: "t", input: null, sideEffect: "irreversible" });
      break;
    case "action.admitted":
      Object.assign(data, { turnId: "turn_1", toolCallId: actionId, toolName: "t", input: null, sideEffect: "irreversible" });
      Object.assign(data, { decision: "allow", rule: "default", attempt: 1, deadlineAt: 0 });
      break;
    case "action.leased":
      Object.assign(data, { attempt: input.attempt, deadlineAt: 0 });
      break;
    case "action.failed":
      Object.assign(data, { retryable: input.retryable, retrying: false, dispatched: true, result });
      break;
    case "action.reconciled":
      Object.assign(data, { verdict: input.verdict });
      break;
  }
  return { type: input.type, at: 0, data } as unknown as ActionEventDraft;
}

const reached = new Set<ActionState>();

interface Model {
  committed: Map<string, ActionStatus>;
  staged: Map<string, ActionStatus>;
}
interface Real {
  book: ActionBook;
  journal: ActionEventDraft[];
}

/** Replays the journal through the state machine from nothing: every event must be legal. */
function replay(journal: readonly ActionEventDraft[]): Map<string, ActionStatus> {
  const statuses = new Map<string, ActionStatus>();
  for (const draft of journal) {
    const result = transitionAction(statuses.get(draft.data.actionId), transitionInput(draft));
    if (!result.ok) {
      throw new YokeError("ACTION_TRANSITION_ILLEGAL", `illegal transition journaled: ${result.reason}`, {
        details: { actionId: draft.data.actionId, type: draft.type },
      });
    }
    statuses.set(draft.data.actionId, result.status);
  }
  return statuses;
}

class Stage implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly actionId: string,
    readonly input: ActionTransitionInput,
  ) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const want = expected(model.staged.get(this.actionId), this.input);
    const got = real.book.stage(draftFor(this.actionId, this.input));
    if (got.ok) reached.add(got.status.state);
    expect(got.ok).toBe(want !== undefined);
    if (got.ok) {
      expect(got.status).toEqual(want);
      model.staged.set(this.actionId, got.status);
    }
  }
  toString = () => `stage(${this.actionId}, ${JSON.stringify(this.input)})`;
}

class Commit implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    real.journal.push(...real.book.drain());
    model.committed = new Map(model.staged);
    expect(replay(real.journal)).toEqual(model.committed);
  }
  toString = () => "commit";
}

class Crash implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    // The process dies: staged drafts are lost; a fresh book is rebuilt from the journal.
    real.book = new ActionBook();
    for (const draft of real.journal) expect(real.book.stage(draft).ok).toBe(true);
    real.book.drain();
    model.staged = new Map(model.committed);
  }
  toString = () => "crash";
}

describe("action state machine (model-based)", () => {
  it("never journals an illegal transition, whatever the events, commits and crashes", async () => {
    const ids = ["action_a", "action_b", "action_c"];
    const stage = fc
      .tuple(
        fc.constantFrom(...ids),
        fc.constantFrom(...ACTION_EVENT_TYPES),
        fc.integer({ min: 0, max: 4 }),
        fc.boolean(),
        fc.constantFrom(...RECONCILE_VERDICTS),
      )
      .map(([id, type, attempt, retryable, verdict]) => new Stage(id, eventInput(type, attempt, retryable, verdict)));
    // Bias towards the next legal step so runs reach deep states, not only refusals.
    const legalStep = fc
      .tuple(fc.constantFrom(...ids), fc.integer({ min: 0, max: 20 }), fc.boolean(), fc.constantFrom(...RECONCILE_VERDICTS))
      .map(([id, pick, retryable, verdict]) => ({ id, pick, retryable, verdict }));
    const legal = legalStep.map(({ id, pick, retryable, verdict }) => new LegalStep(id, pick, retryable, verdict));
    const commands = [stage, stage, fc.constant(new Commit()), fc.constant(new Crash()), legal, legal, legal, legal];
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 120, size: "large" }), async (cmds) => {
        const model: Model = { committed: new Map(), staged: new Map() };
        const real: Real = { book: new ActionBook(), journal: [] };
        await fc.asyncModelRun(() => ({ model, real }), cmds);
        real.journal.push(...real.book.drain());
        replay(real.journal);
      }),
      { numRuns: process.env.YOKE_SOAK === "1" ? 5_000 : 300 },
    );
    // The runs reached every state, so the check above was exercised everywhere.
    expect([...reached].sort()).toEqual([...ACTION_STATES].sort());
  });
});

/** Stages one of the transitions legal from the action's staged state (chosen by `pick`). */
class LegalStep implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly actionId: string,
    readonly pick: number,
    readonly retryable: boolean,
    readonly verdict: ReconcileVerdict,
  ) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    const status = model.staged.get(this.actionId);
    const options = (ACTION_EVENT_TYPES as readonly ActionEventType[])
      .map((type) => eventInput(type, (status?.attempt ?? 0) + 1, this.retryable, this.verdict))
      .filter((input) => expected(status, input) !== undefined);
    if (options.length === 0) return;
    await new Stage(this.actionId, options[this.pick % options.length]!).run(model, real);
  }
  toString = () => `legal(${this.actionId}, ${this.pick}, ${this.retryable}, ${this.verdict})`;
}
