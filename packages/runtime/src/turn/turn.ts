import type { CompileResult } from "@yoke/context-compiler";
import {
  EVENT_SCHEMA_VERSION,
  GENESIS_HASH,
  YokeError,
  withInputFromCall,
  type AppendResult,
  type RunState,
  type YokeEvent,
  type YokeEventDraft,
} from "@yoke/protocol";
import { redacted, typedStored, type RunContext } from "../run-context.js";
import { HOOKS } from "./hooks.js";

/**
 * One append of a run, as a value: it holds the live fold, takes drafts (`add` folds them into
 * the live state at once, so what is built next reads the state they lead to), keeps what rides
 * on its events (the compiled requests), collects what happens once they are stored (`afterCommit`),
 * and appends everything it was given exactly once (`commit`). A draft that does not follow
 * from the state is refused by the fold (EVENT_INVALID) and never journaled.
 *
 * Its drafts are appended in the order they were added, at the length the journal had when the
 * turn opened; nothing else can be appended in between, since the drafts never leave the turn.
 * After a failed fold or append the live state may be ahead of the journal: the context then
 * refuses every later turn with that error (a `resume` starts afresh from the journal), except
 * the one `run.failed` that says why the run stopped (`failureTurn`).
 */
export class Turn {
  readonly context: RunContext;
  /** The seq the turn's first event is appended at. */
  readonly base: number;
  private readonly live: boolean;
  private readonly drafts: YokeEventDraft[] = [];
  private readonly written: YokeEventDraft[] = [];
  // Made on first use: most turns compile nothing and schedule nothing.
  private compiles: Map<string, CompileResult> | undefined;
  private effects: (() => void)[] | undefined;
  private committed = false;

  private constructor(context: RunContext, base: number, live: boolean) {
    this.context = context;
    this.base = base;
    this.live = live;
  }

  /** A turn on the context's live state, appended where the journal ends now. */
  static open(context: RunContext): Turn {
    const { failure, pending } = context.live;
    if (failure !== undefined) throw failure.error;
    // Two turns of one run open at once would append at the same seq: the second is refused before it folds anything.
    if (pending !== undefined) {
      throw new YokeError("INTERNAL", `a turn opened at seq ${pending} holds drafts not yet committed; commit it before opening another`);
    }
    return new Turn(context, context.accumulator.length, true);
  }

  /**
   * A turn that appends at `seq` without folding: the live state ran past the journal (a
   * failed fold or append), so only the `run.failed` that says so is appended, where the
   * journal is known to end.
   */
  static failureAt(context: RunContext, seq: number): Turn {
    return new Turn(context, seq, false);
  }

  /** The live state with every draft added so far. Read it before the next fold. */
  get state(): RunState {
    return this.context.accumulator.peek();
  }

  /** How many drafts the turn holds. */
  get size(): number {
    return this.drafts.length;
  }

  /** Folds `raw` (redacted) into the live state after the drafts added before, and keeps them for the commit. */
  add(raw: readonly YokeEventDraft[]): RunState {
    if (this.committed) throw new YokeError("INTERNAL", "a turn is committed once; open another");
    const { live: fold } = this.context;
    const drafts = redacted(this.context, raw);
    if (!this.live) {
      this.drafts.push(...drafts);
      this.written.push(...drafts);
      return this.state;
    }
    if (fold.failure !== undefined) throw fold.failure.error;
    fold.pending ??= this.base;
    try {
      for (const draft of drafts) {
        this.written.push(foldDraft(this.context, draft, this.base + this.drafts.length));
        this.drafts.push(draft);
      }
    } catch (error) {
      fold.failure = { error };
      throw error;
    }
    return this.state;
  }

  /** What this process compiled for a request among the turn's drafts: once stored, the next delta's base. */
  compiled(result: CompileResult): void {
    (this.compiles ??= new Map()).set(result.manifest.requestHash, result);
  }

  /** Runs `effect` once the turn is stored and its participants have seen it. */
  afterCommit(effect: () => void): void {
    (this.effects ??= []).push(effect);
  }

  /**
   * Appends the turn's drafts as one transaction at `base` (optimistic concurrency: a
   * JOURNAL_CONFLICT means another worker owns the run and propagates as is), under the run's
   * lease, then lets each participant see the stored events, then runs the `afterCommit` effects.
   */
  async commit(): Promise<void> {
    if (this.committed) throw new YokeError("INTERNAL", "a turn is committed once; open another");
    this.committed = true;
    const { context } = this;
    const fold = context.live;
    let appended: AppendResult;
    if (this.live) {
      if (fold.failure !== undefined) throw fold.failure.error;
      fold.pending = undefined;
    }
    try {
      appended = await (context.lease === undefined
        ? context.deps.journal.append(context.scope, this.base, this.written)
        : context.deps.journal.append(context.scope, this.base, this.written, { lease: context.lease.current() }));
    } catch (error) {
      // The live state already holds the drafts: it no longer matches the journal.
      if (this.live) fold.failure = YokeError.hasCode(error, "JOURNAL_EVENT_TOO_LARGE") ? { error, journalLength: this.base } : { error };
      throw error;
    }
    if (this.live) context.accumulator.acknowledge({ length: appended.lastSeq + 1, hash: appended.headHash });
    context.live.commits++;
    // Typed from the drafts, which the fold validated: no event is parsed twice.
    const events = appended.events.map((event, index) => typedStored(this.drafts[index]!, event));
    const stored = { fromSeq: this.base, lastSeq: appended.lastSeq, events, compiles: this.compiles ?? NO_COMPILES, live: this.live };
    const hooks = HOOKS.committed;
    for (let index = 0; index < hooks.length; index++) hooks[index]!(context, stored);
    const effects = this.effects;
    if (effects !== undefined) for (let index = 0; index < effects.length; index++) effects[index]!();
  }
}

/** What a turn that compiled nothing hands its participants (never written to). */
const NO_COMPILES: ReadonlyMap<string, CompileResult> = new Map();

/** The drafts as one turn: open, add, commit. */
export async function commitTurn(context: RunContext, drafts: readonly YokeEventDraft[]): Promise<void> {
  const turn = Turn.open(context);
  turn.add(drafts);
  await turn.commit();
}

/**
 * Folds one draft into the live state (and each participant's view of it) and returns it as
 * it is journaled: an action's input that is exactly its call's arguments is kept once, in
 * the response (`withInputFromCall`); the live state, the participants and `onEvent` see the
 * draft with its input, as a resume's fold gives it back.
 */
function foldDraft(context: RunContext, draft: YokeEventDraft, seq: number): YokeEventDraft {
  const written = context.accumulator.length === 0 ? draft : withInputFromCall(context.accumulator.peek(), draft);
  const event = context.accumulator.apply(provisional(context, draft, seq));
  const hooks = HOOKS.folded;
  for (let index = 0; index < hooks.length; index++) hooks[index]!(context, event);
  return written;
}

/** A draft as the event it will be once stored, but for its hashes (not known before the write). */
function provisional(context: RunContext, draft: YokeEventDraft, seq: number): YokeEvent {
  return typedStored(draft, {
    schemaVersion: EVENT_SCHEMA_VERSION,
    tenantId: context.scope.tenantId,
    runId: context.scope.runId,
    seq,
    at: draft.at,
    causationId: draft.causationId ?? null,
    prevHash: GENESIS_HASH,
    hash: GENESIS_HASH,
  });
}
