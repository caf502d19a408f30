import type { CompileResult } from "@yoke/context-compiler";
import type { ActionRecord, CarriedReservation, JsonValue, ModelResponse, Outcome, RunState, ToolCallPart, YokeEvent, YokeEventDraft } from "@yoke/protocol";
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

/** What every proposed call carries: the live state, the response's batch, its turn, the call, and the access of the calls parked or held before it. */
interface ProposedBase {
  readonly state: RunState;
  readonly batch: BatchTransaction;
  readonly turnId: string;
  readonly call: ToolCallPart;
  readonly blockers: Blockers;
}

/** A call no action holds yet, accepted by its tool (known, valid arguments, within the cap): `accepted` is what its tool says of it. */
export interface NewCall extends ProposedBase {
  readonly parked?: undefined;
  readonly accepted: CallForPolicy;
}

/**
 * A call whose action waits for a person (`awaiting_approval`), proposed again when the batch
 * goes on (a resume, a round after a decision): `parked` is its action as journaled. Its tool
 * is resolved again by whoever decides it: an approval binds to the tool as it is now.
 */
export interface ParkedCall extends ProposedBase {
  readonly parked: ActionRecord;
}

/**
 * One call of a response as it is proposed for admission: a new call, or one parked for a
 * person's approval. Each `admit` decides the kinds it knows and passes on the others.
 */
export type ProposedCall = NewCall | ParkedCall;

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
  /** What the participants settle for work that ended (a verifier run a crash cut short). */
  readonly settle: (ended: EndedWork) => Settlement;
}

/** An attempt whose work ended: dispatched (its tool ran, or may have) or released before it ran. */
export interface EndedAttempt {
  readonly attemptId: string;
  readonly dispatched: boolean;
}

/**
 * Work that ended, as a participant holding something for it (a budget's reservation, a rate
 * limiter's slot) sees it:
 * - `tool_attempts`: attempts whose outcomes the transaction journals, each dispatched or not;
 * - `superseded_attempts`: attempts a resume's recovery moved on (`state`: the live state after it);
 * - `open_attempts`: every attempt still held, as the run ends around them (charged as dispatched);
 * - `failed_model_attempt`: a model call attempt that failed, another following;
 * - `cut_model_call`: the model call a cancellation cut short (`dropped`: the answer that came as it did);
 * - `cut_verifier_run`: a verifier run a crash cut short.
 */
export type EndedWork =
  | { readonly kind: "tool_attempts"; readonly attempts: readonly EndedAttempt[] }
  | { readonly kind: "superseded_attempts"; readonly state: RunState }
  | { readonly kind: "open_attempts" }
  | { readonly kind: "failed_model_attempt"; readonly failure: { readonly attempt: number; readonly code: string } }
  | { readonly kind: "cut_model_call"; readonly turnId: string; readonly dropped: ModelResponse | undefined }
  | { readonly kind: "cut_verifier_run" };

/**
 * What a participant settled for ended work, decided when the work ended: `carry` gives the
 * drafts with its settlements on them (riding on the event that ends each piece of work, else
 * as events of their own after them), a new array; the caller's drafts are left as they were.
 */
export interface Settlement {
  readonly carry: (drafts: readonly YokeEventDraft[]) => YokeEventDraft[];
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
  /**
   * Each proposed call of a response (new, or parked and proposed again), in list order until
   * one decides it: `undefined` at once passes it on; a promise is the decision (to admit,
   * refuse, park, or keep it waiting).
   */
  readonly admit?: (context: RunContext, proposed: ProposedCall) => Promise<Admission> | undefined;
  /**
   * Before an answer completes the run, in list order until one decides. A gate commits its
   * own steps (each is journaled before the work it announces runs) through `commits`.
   */
  readonly gate?: (context: RunContext, answer: Answer, commits: GateCommits) => Promise<GateStep>;
  /** When work ends (see `EndedWork`): what it settles, carried on the drafts that say so. Every participant is asked, in list order. */
  readonly settle?: (context: RunContext, ended: EndedWork) => Settlement | undefined;
  /** Each commit, after the journal acknowledged it. */
  readonly committed?: (context: RunContext, commit: CommittedTurn) => void;
}
