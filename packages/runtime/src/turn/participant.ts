import type { CompileResult } from "@yoke/context-compiler";
import type { RunState, YokeEvent, YokeEventDraft } from "@yoke/protocol";
import type { RunContext } from "../run-context.js";

/**
 * What a participant may do at a turn boundary, where the run could start its next turn:
 * end the run there (`end`: the drafts that end it; `keepNotes`: the notes of the
 * participants before it come first), or add `note` drafts that the next request carries.
 */
export type BoundaryStep = { readonly end: readonly YokeEventDraft[]; readonly keepNotes?: true } | { readonly note: readonly YokeEventDraft[] };

/** One commit as its participants see it, once the journal has stored it. */
export interface CommittedTurn {
  /** The seq of the first event and of the last one. */
  readonly fromSeq: number;
  readonly lastSeq: number;
  /** The stored events, typed, in journal order. */
  readonly events: readonly YokeEvent[];
  /** What this process compiled for the requests among the events, by request hash. */
  readonly compiles: ReadonlyMap<string, CompileResult>;
  /** False for a `run.failed` appended after the live fold ran past the journal (the context is spent). */
  readonly live: boolean;
}

/**
 * One participant of the turn transaction (turn/turn.ts). It sees the live state, each draft
 * as it is folded, and each commit once stored; at a turn boundary it may end the run or add
 * notes. What it keeps is its own; it never appends. `TURN_PARTICIPANTS` lists them in the
 * order they act.
 */
export interface TurnParticipant {
  readonly name: string;
  /** At a turn boundary: `state` is the live state with every draft of the transaction so far. */
  readonly boundary?: (context: RunContext, state: RunState) => BoundaryStep | undefined;
  /** Each draft as the live state folds it, as the event it will be (hashes not known yet). */
  readonly folded?: (context: RunContext, event: YokeEvent) => void;
  /** Each commit, after the journal acknowledged it. */
  readonly committed?: (context: RunContext, commit: CommittedTurn) => void;
}
