import type { CompileResult } from "@yoke/context-compiler";
import type { CarriedReservation, JsonValue, ModelResponse, Outcome, RunState, ToolCallPart, YokeEvent, YokeEventDraft } from "@yoke/protocol";
import type { BatchTransaction, DispatchItem } from "@yoke/scheduler";
import type { Blockers, CallForPolicy } from "../policy-admission.js";
import type { RunContext } from "../run-context.js";

/**
 * What a participant may do at a turn boundary, where the run could start its next turn:
 * end the run there (`end`: the drafts that end it; `keepNotes`: the notes of the
 * participants before it come first), or add `note` drafts that the next request carries.
 */
export type BoundaryStep = { readonly end: readonly YokeEventDraft[]; readonly keepNotes?: true } | { readonly note: readonly YokeEventDraft[] };

/** A model call about to be requested: its turn, the compiled request's size, whether it starts the turn. */
export interface ModelCall {
  readonly turnId: string;
  readonly inputTokens: number;
  readonly outputReserve: number;
  readonly startsTurn: boolean;
}

/**
 * What a participant adds to a model call: a reservation carried on its `model.requested`,
 * or the outcome that ends the run instead of the call (`budget_exhausted`).
 */
export type RequestStep = { readonly reserved: CarriedReservation } | { readonly refused: Extract<Outcome, { status: "budget_exhausted" }> };

/**
 * One call of a response, accepted by its tool (known, valid arguments, within the cap), as
 * it is proposed for admission: the live state, the response's batch, the call and what its
 * tool says of it, and the access of the calls parked or held before it in the batch.
 */
export interface ProposedCall {
  readonly state: RunState;
  readonly batch: BatchTransaction;
  readonly turnId: string;
  readonly call: ToolCallPart;
  readonly accepted: CallForPolicy;
  readonly blockers: Blockers;
}

/**
 * What a participant made of a proposed call: the drafts that say so (admitted, refused, or
 * parked for approval) and, when it is admitted, the attempt to dispatch once journaled.
 */
export interface Admission {
  readonly drafts: YokeEventDraft[];
  readonly item?: DispatchItem;
}

/**
 * An answer on its way to completing the run (a response that ends its turn, past the output
 * schema): the live state, the response, its turn and the output the schema accepted.
 */
export interface Answer {
  readonly state: RunState;
  readonly response: ModelResponse;
  readonly turnId: string;
  readonly output: JsonValue | undefined;
}

/**
 * What a gate did with an answer: `decided` when it committed what comes next (the run's end,
 * a wait, or the next turn), so no later gate and no plain completion follows; `undefined`
 * lets the next gate judge, and with none left the run completes unverified.
 */
export type GateStep = "decided" | undefined;

/**
 * How a gate commits its steps, each as a turn of its own: `commit` appends the drafts;
 * `next` appends them with what starts the next turn (the boundary's participants, the
 * request). A gate adds drafts; it never appends by itself.
 */
export interface GateCommits {
  readonly commit: (drafts: readonly YokeEventDraft[]) => Promise<void>;
  readonly next: (drafts: readonly YokeEventDraft[]) => Promise<void>;
}

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
 * notes; a gate judges an answer before the run completes. What it keeps is its own; only a
 * gate commits, and only through the turn transaction. `TURN_PARTICIPANTS` lists them in the
 * order they act.
 */
export interface TurnParticipant {
  readonly name: string;
  /** At a turn boundary: `state` is the live state with every draft of the transaction so far. */
  readonly boundary?: (context: RunContext, state: RunState) => BoundaryStep | undefined;
  /** Each draft as the live state folds it, as the event it will be (hashes not known yet). */
  readonly folded?: (context: RunContext, event: YokeEvent) => void;
  /** Before a model call is requested, in list order until one refuses it. */
  readonly beforeRequest?: (context: RunContext, call: ModelCall) => RequestStep | undefined;
  /** Each proposed call of a response, in list order until one admits, refuses or parks it. */
  readonly admit?: (context: RunContext, proposed: ProposedCall) => Promise<Admission | undefined>;
  /**
   * Before an answer completes the run, in list order until one decides. A gate commits its
   * own steps (each is journaled before the work it announces runs) through `commits`.
   */
  readonly gate?: (context: RunContext, answer: Answer, commits: GateCommits) => Promise<GateStep>;
  /** Each commit, after the journal acknowledged it. */
  readonly committed?: (context: RunContext, commit: CommittedTurn) => void;
}
