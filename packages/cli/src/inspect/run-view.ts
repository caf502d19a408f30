import type {
  ActionState,
  BudgetAmounts,
  Carries,
  Influence,
  JsonValue,
  Outcome,
  PolicyDelegation,
  ReconcileVerdict,
  Release,
  StopReason,
  StoredJson,
  Usage,
  VerifyFailureReason,
} from "@yoke/protocol";
import type { DecisionFact } from "./decision-facts.js";

export type { DecisionFact } from "./decision-facts.js";

/**
 * The run model `yoke show` prints and the run viewer renders: everything a person on call
 * needs from one run's events, as plain JSON (no Maps, no classes), built by `inspectRun`.
 * Every entry names the sequence number(s) of the event(s) it came from.
 */
export interface RunView {
  readonly header: RunHeader;
  /** Turns in order, after the preamble `turns[0]` (index 0: `run.started` and whatever precedes the first `turn.started`). */
  readonly turns: readonly TurnView[];
  /** Every action of the run, in proposal order (each also listed by id in its turn's `actionIds`). */
  readonly actions: readonly ActionView[];
  readonly budget: BudgetView | undefined;
  readonly approvals: readonly ApprovalView[];
  readonly verifierRuns: readonly VerifierRunView[];
  readonly waits: readonly WaitView[];
  readonly interrupts: readonly InterruptView[];
  readonly loopDetections: readonly LoopDetectionView[];
  readonly failures: readonly RunFailureView[];
  /** Total usage of every model response, and the spend charged for model calls (when priced). */
  readonly usage: UsageView;
  /** One line per event, in order: what `yoke show` prints. */
  readonly timeline: readonly TimelineEntry[];
  /** The hash chain: unchecked until the caller passes a `verify` result to `inspectRun`. */
  readonly chain: ChainStatus;
  /** Events the run model could not place (an illegal action transition, a delta that does not apply): the view is still built. */
  readonly problems: readonly InspectProblem[];
}

export interface RunHeader {
  readonly tenantId: string;
  readonly runId: string;
  readonly sessionId: string;
  readonly task: string;
  readonly systemPrompt: string | undefined;
  /** The parent run and spawn action of a child run (a subagent). */
  readonly parent: { readonly runId: string; readonly actionId: string; readonly contextRevision: number } | undefined;
  /** The run of which this stream is the interrupt inbox (`run.started.inboxOf`). */
  readonly inboxOf: string | undefined;
  /** `finished` with an outcome, `waiting` for a person or an approval, `failed` (stopped by a journaled error, resumable), else `running` (or cut short by a crash). */
  readonly status: RunStatus;
  readonly outcome: Outcome | undefined;
  readonly turns: number;
  readonly maxTurns: number;
  /** The turns the run may take: `maxTurns`, or its budget's `turns` limit where that is smaller (the one that binds). */
  readonly turnLimit: number;
  readonly tools: readonly string[];
  /** The release the run is pinned to: `run.started.release`, or the `to` of its last `release.changed` / `release.migrated`. */
  readonly release: StoredJson<Release> | undefined;
  /** The seq of the last `release.changed` / `release.migrated`: where the run was pinned to `release`; undefined: since it started. */
  readonly releasedAt: number | undefined;
  /** `at` of `run.started` and of the last event (milliseconds since the epoch, the writer's clock). */
  readonly startedAt: number;
  readonly lastEventAt: number;
  readonly events: number;
  readonly lastSeq: number;
}

export type RunStatus = "running" | "waiting" | "failed" | "finished";

export interface TurnView {
  /** 1-based as in `turn.started`; 0 for the preamble. */
  readonly index: number;
  readonly turnId: string | undefined;
  readonly seq: number;
  readonly at: number;
  /** Tools offered to the turn (names). */
  readonly offered: readonly string[] | undefined;
  readonly modelCalls: readonly ModelCallView[];
  readonly actionIds: readonly string[];
  readonly rejections: readonly RejectionView[];
  readonly inputs: readonly InputView[];
  /** Usage of the turn's responses, summed. */
  readonly usage: Usage;
  /** Spend charged for the turn's model calls (micro-units of `currency`), when the run's budget prices them. */
  readonly cost: number | undefined;
  readonly currency: string | undefined;
  readonly firstSeq: number;
  readonly lastSeq: number;
}

export interface ModelCallView {
  /** Sequence numbers of `context.compiled` (when journaled) and `model.requested`. */
  readonly compiledSeq: number | undefined;
  readonly requestedSeq: number;
  /** 0 for the turn's first request, 1 for the one that continued it (max_tokens, a cut call), … */
  readonly requestInTurn: number;
  readonly requestHash: string;
  readonly messageCount: number;
  readonly manifest: ManifestSummary | undefined;
  readonly failures: readonly { readonly seq: number; readonly attempt: number; readonly code: string; readonly message: string; readonly retrying: boolean }[];
  readonly response: ResponseView | undefined;
  /** The budget reservation made for this call, and its settlement. */
  readonly reservationId: string | undefined;
  readonly cost: number | undefined;
}

export interface ManifestSummary {
  readonly revision: number;
  readonly contextRevision: number;
  readonly model: string;
  readonly tokenizer: string;
  readonly requestBytes: number;
  /** Items by decision, over the whole manifest. */
  readonly counts: { readonly included: number; readonly truncated: number; readonly omitted: number; readonly compacted: number };
  /** Items by trust label, over the whole manifest. */
  readonly trust: Readonly<Record<string, number>>;
  /** Items this compile added (the delta's `append`), and every item not rendered whole (truncated, omitted, compacted): with reasons. */
  readonly items: readonly ManifestItemView[];
  /** Items kept from the previous manifest unchanged. */
  readonly kept: number;
  readonly allocation: {
    readonly contextWindow: number;
    readonly outputReserve: number;
    readonly mandatory: number;
    readonly sections: Readonly<Record<string, number>>;
    readonly overhead: number;
    readonly used: number;
    readonly free: number;
  };
  readonly tools: readonly { readonly name: string; readonly trust: string; readonly tokens: number }[];
  readonly artifacts: number;
  readonly compactions: number;
}

export interface ManifestItemView {
  readonly id: string;
  readonly kind: string;
  readonly trust: string;
  readonly section: string;
  readonly decision: "included" | "truncated" | "omitted" | "compacted";
  readonly reason: string | undefined;
  readonly tokens: number;
  /** For a truncated item: bytes per cut part. */
  readonly truncations: readonly { readonly part: number; readonly originalBytes: number; readonly keptBytes: number; readonly artifactHash: string }[];
  /** True when this compile added the item (false: carried from an earlier manifest and listed because it is not rendered whole). */
  readonly added: boolean;
}

export interface ResponseView {
  readonly seq: number;
  readonly at: number;
  readonly provider: string;
  readonly model: string;
  readonly stopReason: StopReason;
  readonly parts: readonly ResponsePartView[];
  readonly usage: Usage;
  readonly latencyMs: number;
  readonly requestId: string | undefined;
}

export type ResponsePartView =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "refusal"; readonly text: string }
  | { readonly type: "reasoning" }
  | {
      readonly type: "tool-call";
      readonly toolCallId: string;
      readonly toolName: string;
      readonly arguments: string;
      readonly truncated: boolean;
      /** Set on a call of a refused response: kept for the record, never run. */
      readonly withheld?: boolean;
    }
  | { readonly type: "server-tool"; readonly text: string };

/** One step of an action's state strip. */
export interface ActionStep {
  readonly state: ActionState;
  readonly seq: number;
  readonly at: number;
  /** The event that moved the action (`action.admitted` moves it through five states at one seq). */
  readonly event: string;
  readonly attempt: number;
  /** For `action.reconciled`: what the reconciler found (`state` is where that left the action). */
  readonly verdict?: ReconcileVerdict;
}

export interface ActionView {
  readonly actionId: string;
  readonly turnId: string;
  readonly toolCallId: string;
  readonly toolName: string;
  readonly toolRevision: string | undefined;
  readonly sideEffect: "none" | "idempotent" | "reversible" | "irreversible";
  readonly input: JsonValue;
  /** Where it stands now. */
  readonly state: ActionState;
  readonly steps: readonly ActionStep[];
  readonly authorization: { readonly seq: number; readonly rule: string; readonly approvalId: string | undefined } | undefined;
  /** What could have steered the decision to make the call, as journaled with the policy decision (absent without a policy, and in journals written before influence). */
  readonly influence: Influence | undefined;
  /** What the call carried, as journaled with the policy decision (absent when its tool declares no payloads, and in journals written before it). */
  readonly carries?: Carries;
  /**
   * The members of the policy tuple journaled with its latest decision (`influence`,
   * `delegation`, `carries`), as written: JSON of any shape, empty without a policy.
   */
  readonly decisionFacts: readonly DecisionFact[];
  /** Where the call stood against the run's delegation, as journaled with the policy decision (absent for a run without one). */
  readonly delegation?: PolicyDelegation;
  readonly attempts: readonly AttemptView[];
  readonly reconciliations: readonly { readonly seq: number; readonly verdict: string; readonly receipt: JsonValue | undefined }[];
  readonly compensations: readonly {
    readonly seq: number;
    readonly step: "compensating" | "compensated" | "compensation_failed";
    readonly detail: string | undefined;
  }[];
  /** The result the model was shown (committed, failed, or reconciled as applied). */
  readonly result: ResultView | undefined;
  readonly receipt: JsonValue | undefined;
  readonly firstSeq: number;
}

export interface AttemptView {
  readonly attempt: number;
  readonly attemptId: string | undefined;
  readonly leasedSeq: number | undefined;
  readonly deadlineAt: number | undefined;
  readonly executingSeq: number | undefined;
  /** committed | uncertain | failed, or undefined while it runs (or when a crash cut it). */
  readonly outcome: "committed" | "uncertain" | "failed" | undefined;
  readonly outcomeSeq: number | undefined;
  readonly detail: string | undefined;
  readonly durationMs: number | undefined;
  readonly receipt: JsonValue | undefined;
  /** Budget reservation for the attempt (kind tool_attempt). */
  readonly reservationId: string | undefined;
}

export interface ResultView {
  readonly status: "ok" | "error";
  readonly text: string;
  readonly errorCode: string | undefined;
  readonly truncated: boolean;
}

export interface RejectionView {
  readonly seq: number;
  readonly toolCallId: string;
  readonly toolName: string;
  readonly code: string;
  readonly message: string;
  /** The members of the policy tuple journaled with a policy's refusal, as written (see `ActionView.decisionFacts`). */
  readonly decisionFacts: readonly DecisionFact[];
}

export interface InputView {
  readonly seq: number;
  readonly source: string;
  readonly text: string;
}

export interface ApprovalView {
  readonly approvalId: string;
  readonly actionId: string;
  readonly requestedSeq: number;
  /** The policy rule that asked for the approval, and its reason, as journaled with the request. */
  readonly rule: string;
  readonly reason: string;
  readonly expiresAt: number | undefined;
  readonly decision:
    | { readonly seq: number; readonly kind: "granted" | "denied" | "voided"; readonly by: string | undefined; readonly reason: string | undefined }
    | undefined;
}

export interface VerifierRunView {
  readonly verifierRunId: string;
  readonly verifierId: string;
  readonly turnId: string;
  readonly attempt: number;
  readonly replaySafe: boolean;
  readonly startedSeq: number;
  readonly finished: { readonly seq: number; readonly passed: boolean; readonly reason: string | undefined } | undefined;
}

export interface WaitView {
  readonly seq: number;
  readonly kind: string;
  readonly reason: string;
  readonly actionId: string | undefined;
}

export interface InterruptView {
  readonly seq: number;
  readonly interruptId: string;
  readonly kind: "input" | "cancel";
  readonly inboxSeq: number;
}

export interface LoopDetectionView {
  readonly seq: number;
  readonly toolName: string;
  readonly pattern: "repeat" | "cycle";
  readonly count: number;
  readonly response: "steer" | "escalate";
}

export interface RunFailureView {
  readonly seq: number;
  readonly code: string;
  readonly message: string;
  readonly retryable: boolean;
}

export interface BudgetView {
  readonly budgetId: string;
  readonly limits: BudgetAmounts;
  readonly pricing: { readonly id: string; readonly revision: string; readonly currency: string } | undefined;
  readonly reservations: readonly ReservationView[];
  /** Charged per dimension over every settled reservation. */
  readonly charged: BudgetAmounts;
  /** Reservations not settled (work in flight, or cut by a crash). */
  readonly open: number;
  readonly overshoots: number;
}

export interface ReservationView {
  readonly reservationId: string;
  readonly parentId: string;
  readonly kind: string;
  readonly turnId: string | undefined;
  readonly actionId: string | undefined;
  readonly discarded: boolean;
  readonly amounts: BudgetAmounts;
  readonly reservedSeq: number;
  readonly settled: { readonly seq: number; readonly charged: BudgetAmounts; readonly overshoot: boolean } | undefined;
}

export interface UsageView {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  /** Spend charged over the run (every settled reservation), in micro-units of `currency`; undefined without pricing. */
  readonly cost: number | undefined;
  readonly currency: string | undefined;
}

export interface TimelineEntry {
  readonly seq: number;
  readonly at: number;
  readonly type: string;
  /** The turn the event belongs to (0 before the first turn). */
  readonly turn: number;
  readonly actionId: string | undefined;
  /** One line, untrusted text included verbatim but clipped: render it as text, never as HTML. */
  readonly summary: string;
}

export type ChainStatus =
  | { readonly checked: false }
  | { readonly checked: true; readonly ok: true; readonly events: number; readonly headHash: string }
  | { readonly checked: true; readonly ok: false; readonly firstBadSeq: number; readonly reason: VerifyFailureReason; readonly message: string };

export interface InspectProblem {
  readonly seq: number;
  readonly message: string;
}

/** One row of `yoke runs`: a run as `listRuns` summarizes it. */
export interface RunSummary {
  readonly tenantId: string;
  readonly runId: string;
  readonly task: string;
  readonly status: RunStatus;
  readonly outcome: Outcome["status"] | undefined;
  readonly turns: number;
  readonly events: number;
  readonly startedAt: number;
  readonly lastEventAt: number;
  readonly parentRunId: string | undefined;
  /** The session the run belongs to (`run.started.sessionId`; empty when the run could not be read). */
  readonly sessionId: string;
  /** Set when reading the run stopped at a broken chain (`atSeq`: the first event not read). */
  readonly readError?: { readonly code: string; readonly message: string; readonly atSeq: number };
}
