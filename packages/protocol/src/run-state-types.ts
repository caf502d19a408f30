import type { ActionStatus } from "./actions.js";
import type { Outcome, RunFork } from "./events.js";
import type { JsonValue, Message, ModelResponse, ToolSpec, Usage } from "./model.js";
import type { ApprovalRecord } from "./approvals.js";
import type { PolicyDecision } from "./policy.js";
import type { PolicyDelegation, RunDelegation } from "./delegation.js";
import type { ToolDrift, ToolRevisionRecord, ToolSnapshot } from "./tool-registry.js";
import type { RunPhase } from "./run-phase.js";
import type { CallSettings } from "./call-settings.js";
import type { Release } from "./release-schema.js";
import type { StoredJson } from "./events.js";

export type { RunPhase };

export interface PendingToolCall {
  /**
   * Position of the call in the response's proposal order. Tool-call ids are the model's
   * and may repeat within a response; the index never does.
   */
  readonly index: number;
  readonly toolCallId: string;
  readonly toolName: string;
  readonly arguments: JsonValue | undefined;
  /** Set once `action.admitted` or `action.executing` (or a legacy `tool.started`) is journaled: the effect may have begun. */
  readonly started?: { readonly actionId: string; readonly attemptId: string; readonly attempt: number };
  /** Set once `action.proposed` is journaled: the action this call became. */
  readonly actionId?: string;
}

/** One action of the current batch (the last response's accepted calls), folded from `action.*` events. */
/**
 * What an action's latest attempt was authorized under, with a policy engine: the rule, the
 * engine's decision (for an approved action, the `require_approval` its approval answered),
 * and the approval that authorized it. A later attempt is decided again against this
 * (docs/decisions/0013, issue 33), and a changed decision is journaled with both.
 */
export interface ActionAuthority {
  readonly rule: string;
  readonly policy?: PolicyDecision;
  readonly approvalId?: string;
  /** Where the action stood against the run's delegation when it was decided (absent for a run without one). */
  readonly delegation?: PolicyDelegation;
}

export interface ActionRecord {
  readonly actionId: string;
  readonly turnId: string;
  readonly toolCallId: string;
  readonly toolName: string;
  readonly input: JsonValue;
  readonly sideEffect: "none" | "idempotent" | "reversible" | "irreversible";
  /** The digest of the tool revision the action runs (from `action.admitted`/`action.proposed`); absent in journals written before the registry. */
  readonly toolRevision?: string;
  readonly status: ActionStatus;
  /** The attempt leased last. */
  readonly attemptId: string | undefined;
  readonly receipt: JsonValue | undefined;
  /** Sequence number of the event that committed it: compensation runs in reverse of this. */
  readonly committedSeq: number | undefined;
  /** What its latest attempt was authorized under, when a policy engine decided it (absent otherwise). */
  readonly authority?: ActionAuthority;
}

export interface RunState {
  readonly tenantId: string;
  readonly runId: string;
  readonly sessionId: string;
  readonly task: string;
  readonly systemPrompt: string | undefined;
  readonly tools: readonly ToolSpec[];
  /** The registry snapshot `run.started` pinned; undefined in journals written before the registry. */
  readonly toolSnapshot: ToolSnapshot | undefined;
  /**
   * The revision the run calls for each tool name: the snapshot's, replaced by a journaled
   * `tool.readmitted`. Empty when the run pinned no snapshot.
   */
  readonly pinnedTools: ReadonlyMap<string, ToolRevisionRecord>;
  /** Tools with a journaled drift not (yet) re-admitted, by name: the run may not call them. */
  readonly driftedTools: ReadonlyMap<string, ToolDrift>;
  /** The tools offered to the current turn (`turn.started`'s `offered`); undefined when it named none. */
  readonly offeredTools: { readonly digest: string; readonly tools: readonly { readonly name: string; readonly digest: string }[] } | undefined;
  /** Who the run acts for and the scopes delegated to its task (`run.started.principal`; the tenant, unauthenticated, before policy). */
  readonly principal: { readonly id: string; readonly authenticated: boolean; readonly scopes: readonly string[] };
  /** Every approval requested in the run, by approval id, with its latest status. */
  readonly approvals: ReadonlyMap<string, ApprovalRecord>;
  readonly maxTurns: number;
  /** Tool calls of one response that may run; the rest are rejected (TOOL_CALL_LIMIT). Undefined: no cap (a journal from before the cap). */
  readonly maxToolCallsPerTurn: number | undefined;
  /** UTF-8 bytes of one tool result an event may hold inline (see `run.started`). Undefined: no limit (a journal from before it). */
  readonly maxEventOutputBytes: number | undefined;
  /** UTF-8 bytes of one tool call's arguments the run keeps (see `run.started`). Undefined: no limit (a journal from before it). */
  readonly maxToolInputBytes: number | undefined;
  readonly phase: RunPhase;
  /** Turns started so far. */
  readonly turns: number;
  readonly currentTurnId: string | undefined;
  /** The session's earlier runs this run continues (`run.started.continues`): their conversations precede its own. Undefined for a session's first run. */
  readonly continues: readonly { readonly runId: string; readonly length: number; readonly headHash: string }[] | undefined;
  /**
   * The release the run is pinned to: `run.started.release`, or the `to` of the last
   * `release.changed` / `release.migrated`.
   */
  readonly release: StoredJson<Release>;
  /** The transcript the model is shown (without the system prompt). */
  readonly messages: readonly Message[];
  /** The sequence number of the event each message of `messages` came from (same indexes). */
  readonly messageSeqs: readonly number[];
  readonly lastResponse: ModelResponse | undefined;
  /** Tool calls of the last response, in proposal order, that have no result yet. */
  readonly pendingToolCalls: readonly PendingToolCall[];
  /** Actions of the last response's calls, in proposal order, whatever their state. */
  readonly actions: readonly ActionRecord[];
  readonly usage: Usage;
  /**
   * Set while the run waits for a person (`run.waiting`: a refusal, a content filter, an
   * escalation); cleared by the input that resumes it (`input.added`) or by its end.
   */
  readonly waiting:
    | { readonly kind: "refusal" | "content_filter" | "escalation"; readonly reason: string; readonly turnId?: string; readonly actionId?: string }
    | undefined;
  /** The parent run and spawn action of a child run (`run.started.parent`); undefined for a top-level run. */
  readonly parent: { readonly runId: string; readonly actionId: string; readonly contextRevision: number; readonly fork?: RunFork } | undefined;
  /** The model settings in effect (`run.started.settings`, then the last `settings.changed`); undefined when none were given. */
  readonly settings: CallSettings | undefined;
  /** The delegation `run.delegated` pinned and how much of each grant is spent; absent for a run without one. */
  readonly delegation?: RunDelegation;
  readonly outcome: Outcome | undefined;
  /**
   * When the run asked for structured output and finished with an answer: that answer parsed
   * as JSON, as it passed the output schema (`run.completed`'s `output`).
   */
  readonly output?: JsonValue;
  /** Number of events folded; the next append's expected sequence number. */
  readonly length: number;
  readonly headHash: string;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
/** The accumulator's working copy of the state. */
export type MutableRunState = Mutable<Omit<RunState, "messages" | "messageSeqs" | "pendingToolCalls" | "actions">> & {
  messages: Message[];
  messageSeqs: number[];
  pendingToolCalls: PendingToolCall[];
  actions: ActionRecord[];
};
