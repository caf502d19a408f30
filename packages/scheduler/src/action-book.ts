import type { ActionRecord, ActionStatus, EventData, YokeEventDraft } from "@yoke/protocol";
import { transitionAction, type ActionTransitionInput } from "@yoke/protocol/journal-utils";

/** A draft of one `action.*` event. */
export type ActionEventDraft = Extract<YokeEventDraft, { type: `action.${string}` }>;

export type StageResult = { readonly ok: true; readonly status: ActionStatus } | { readonly ok: false; readonly reason: string };

/**
 * The scheduler's view of the actions of one batch: every transition is checked against
 * the action state machine before it is staged, and staged drafts leave the book only as a
 * whole, for one journal append. An illegal transition is refused here, so it is never
 * journaled.
 *
 * @example
 * ```ts
 * const book = new ActionBook();
 * book.stage({ type: "action.proposed", at: 0, data: { ...call, actionId, input, sideEffect: "none" } }); // { ok: true, … }
 * book.stage({ type: "action.committed", at: 0, data: { actionId, attemptId, result } }); // { ok: false, reason }
 * await journal.append(scope, seq, book.drain());
 * ```
 */
export class ActionBook {
  readonly #statuses = new Map<string, ActionStatus>();
  #staged: ActionEventDraft[] = [];

  /** A book that continues from folded state (a resume). */
  static fromRecords(records: readonly ActionRecord[]): ActionBook {
    const book = new ActionBook();
    for (const record of records) book.#statuses.set(record.actionId, record.status);
    return book;
  }

  status(actionId: string): ActionStatus | undefined {
    return this.#statuses.get(actionId);
  }

  /** Stages `draft` if its transition is legal from the action's current (staged) status. */
  stage(draft: ActionEventDraft): StageResult {
    const actionId = draft.data.actionId;
    const result = transitionAction(this.#statuses.get(actionId), transitionInput(draft));
    if (!result.ok) return result;
    this.#statuses.set(actionId, result.status);
    this.#staged.push(draft);
    return result;
  }

  /** The drafts staged since the last drain, in order; the book forgets them. */
  drain(): ActionEventDraft[] {
    const drafts = this.#staged;
    this.#staged = [];
    return drafts;
  }

  get stagedCount(): number {
    return this.#staged.length;
  }
}

/** The part of a draft the state machine looks at. */
export function transitionInput(draft: ActionEventDraft): ActionTransitionInput {
  switch (draft.type) {
    case "action.leased":
      return { type: draft.type, attempt: (draft.data as EventData<"action.leased">).attempt };
    case "action.failed":
      return { type: draft.type, retryable: (draft.data as EventData<"action.failed">).retryable };
    case "action.reconciled":
      return { type: draft.type, verdict: (draft.data as EventData<"action.reconciled">).verdict };
    default:
      return { type: draft.type };
  }
}
