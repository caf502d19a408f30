import type { DelegationPlanner } from "./delegation-types.js";
import type {
  ArtifactDigest,
  ArtifactStoreV2,
  Clock,
  IdSource,
  JournalEvent,
  JournalV1,
  PolicyEngineV1,
  ProviderAdapterV1,
  RunScope,
  RunStateAccumulator,
  AnyToolDeclaration,
  ToolRegistryV1,
  YokeEvent,
  YokeEventDraft,
} from "@yoke/protocol";
import type { AnyTool } from "./define-tool.js";
import type { CompletionCheck } from "./harness-types.js";
import type { BoundLogger as Logger } from "./logger.js";
import type { Sleep } from "./model-call.js";
import type { CompileConfig, ContextCompiler } from "@yoke/context-compiler";
import type { CompiledContext } from "./compiled-context.js";
import type { ContextOptions } from "./harness-types.js";
import type { DispatchItem, Timers } from "@yoke/scheduler";
import type { ToolExecutor } from "./tool-executor.js";
import type { ResolvedOutput } from "./structured-output.js";
import type { HeldLease, LeasePolicy } from "./run-lease.js";
import type { DiscoveryOption } from "./pinned-tools.js";
import type { Redactor } from "./redaction.js";
import type { LoopControl } from "./loop-control.js";
import type { RunFacts } from "./loop/run-facts.js";
import type { InterruptInbox, ResolvedInterrupts } from "./loop-control.js";
import type { ResolvedBudget } from "./budget/budget-options.js";
import type { RunBudget } from "./budget/run-budget.js";
import type { ResolvedReleases } from "./release/release-options.js";
import type { ResolvedSubagents } from "./subagents/subagent-options.js";

/** A harness's resolved options: every default filled in, validated once. */
export interface HarnessDeps {
  readonly journal: JournalV1;
  readonly provider: ProviderAdapterV1;
  /** The harness's tools by name: what a run that pinned no snapshot (a journal written before the registry) calls. */
  readonly tools: ReadonlyMap<string, AnyTool>;
  /** Where runs get their pinned snapshot, per-turn offers and revisions to run (a local registry of `tools` by default). */
  readonly registry: ToolRegistryV1 | undefined;
  /** Who asks for tools on each turn (`HarnessOptions.discovery`). */
  readonly discovery: DiscoveryOption | undefined;
  readonly tenantId: string;
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly logger: Logger;
  readonly systemPrompt: string | undefined;
  readonly maxTurns: number;
  /** Undefined when the harness has none: a final answer then ends the run `completed` (unverified). */
  readonly checkCompletion: CompletionCheck | undefined;
  readonly onEvent: ((event: YokeEvent) => void) | undefined;
  readonly runtimeVersion: string;
  /** How a resume treats a run pinned to another release (`HarnessOptions.releases`). */
  readonly releases: ResolvedReleases;
  /**
   * How a resume settles the run's release before it journals anything (default: the check of
   * docs/decisions/0026 against `releases`). A replay gives the record's release events back
   * instead: a release change is something the recorded caller did, not what the code decides.
   */
  readonly settleRelease?: (context: RunContext) => Promise<void>;
  readonly modelRetries: number;
  readonly modelCallTimeoutMs: number;
  /** Responses in a row with a tool call cut by the output limit that get a note and another request; one more ends the run. */
  readonly truncatedCallRetries: number;
  /** Pinned in `run.started` of the runs this harness starts; a run's own pinned value rules its turns. */
  readonly maxToolCallsPerTurn: number;
  /** Pinned in `run.started` of the runs this harness starts; a run's own pinned value rules its results. */
  readonly maxEventOutputBytes: number;
  /** Pinned in `run.started` of the runs this harness starts; a run's own pinned value rules its calls. */
  readonly maxToolInputBytes: number;
  /** Where results past a run's `maxEventOutputBytes` go; undefined: they become TOOL_OUTPUT_TOO_LARGE. */
  readonly artifacts: ArtifactStoreV2 | undefined;
  readonly sleep: Sleep;
  readonly timers: Timers;
  readonly executor: ToolExecutor;
  /** The compile config every run of this harness uses (model and window from the provider). */
  readonly compileConfig: CompileConfig;
  readonly context: ContextOptions;
  /** How runs are owned; undefined when the journal offers no leases or they are turned off. */
  readonly lease: LeasePolicy | undefined;
  /** The structured output asked for (`output`), undefined without one. */
  readonly output: ResolvedOutput | undefined;
  /** Answers that do not match `output` sent back to the model before the run ends `verification_failed`. */
  readonly outputRetries: number;
  /** Redacts the harness's `secrets` (undefined without any): from logs and thrown errors. */
  readonly redactor: Redactor | undefined;
  /** Redacts the `secrets` from a journal draft before it is folded or written (same object for the same draft). */
  readonly redactDraft: ((draft: YokeEventDraft) => YokeEventDraft) | undefined;
  /** Decides every proposed call; undefined: allow by rule `default`, as before policy. */
  readonly policy: PolicyEngineV1 | undefined;
  /** The planning step that proposes a new run's delegation (`HarnessOptions.planDelegation`); absent: none. */
  readonly planDelegation?: DelegationPlanner;
  /** Who the harness's runs act for (`HarnessOptions.principal`); undefined: the tenant, unauthenticated. */
  readonly principal: ResolvedPrincipal | undefined;
  readonly approvalTtlMs: number;
  /** Verifier gate, stop-condition limits, loop detection, workspace (loop-control.ts). */
  readonly loopControl: LoopControl;
  /** The runs' budget (`HarnessOptions.budget`); undefined: unbounded but for `maxTurns`. */
  readonly budget: ResolvedBudget | undefined;
  /** Subagents (`HarnessOptions.subagents`): undefined without them. */
  readonly subagents?: ResolvedSubagents | undefined;
  /** The inbox poll interval during a model call, and the runs this harness drives (`HarnessOptions.interrupts`). */
  readonly interrupts: ResolvedInterrupts;
}

/** A principal as `run.started.principal` journals it. */
export interface ResolvedPrincipal {
  readonly id: string;
  readonly authenticated: boolean;
  readonly scopes: string[];
}

/** One `start` or `resume` of one run: the live fold and what this process has in flight. */
export interface RunContext {
  readonly deps: HarnessDeps;
  readonly scope: RunScope;
  /** Kept current by the run's turns (turn/turn.ts); the journal is never re-read while the loop runs. */
  readonly accumulator: RunStateAccumulator;
  readonly signal: AbortSignal | undefined;
  readonly logger: Logger;
  /**
   * Attempts this process journaled as executing (`action.admitted` or `action.executing`)
   * and has not dispatched yet, by attempt id. An executing attempt missing here was
   * journaled by a process that died.
   */
  readonly dispatchable: Map<string, DispatchItem>;
  /**
   * Long-lived compilers, one per distinct run settings (`run-settings.ts`, `compilerFor`):
   * a turn costs what is new, not the history.
   */
  readonly compilers: Map<string, ContextCompiler>;
  readonly compiled: CompiledContext;
  readonly live: LiveFold;
  /** The run's lease this process holds (when the journal offers leases): every append carries it. */
  readonly lease: HeldLease | undefined;
  /** Declarations of the tool revisions this process admitted or resolved, by revision digest. */
  readonly revisions: Map<string, AnyToolDeclaration>;
  /** Loop detection, the verifier gate's progress, landed interrupts: folded from the same events as `accumulator`. */
  readonly facts: RunFacts;
  /** The run's interrupt inbox as this process last read it. */
  readonly inbox: InterruptInbox;
  /** Input images and files read back from the artifact store for the provider, by digest (base64): read once per process. */
  readonly media: Map<ArtifactDigest, string>;
  /** The run's budget ledger and open reservations (rebuilt from `budget.*` events on resume); inert for a run without a budget. */
  readonly budget: RunBudget;
}

/**
 * Where this context's live state stands against the journal; turn/turn.ts keeps it. The
 * live state runs ahead of the journal while a turn holds folded drafts; after a failed fold
 * or append it may stay ahead, so the context refuses every later turn (a `resume` starts
 * afresh from the journal).
 */
export interface LiveFold {
  /** The seq the open turn appends at, while it holds drafts folded ahead of the journal. */
  pending: number | undefined;
  /**
   * `journalLength`: set when the journal refused the append whole before writing anything
   * (JOURNAL_EVENT_TOO_LARGE), so the journal is known to end there and `run.failed` can follow.
   */
  failure: { readonly error: unknown; readonly journalLength?: number } | undefined;
  /** Appends this context made. */
  commits: number;
}

export function createLiveFold(): LiveFold {
  return { pending: undefined, failure: undefined, commits: 0 };
}

/** The drafts as they may be folded and written: the harness's secrets cut out (the same objects when none occurs). */
export function redacted(context: RunContext, drafts: readonly YokeEventDraft[]): readonly YokeEventDraft[] {
  const redact = context.deps.redactDraft;
  return redact === undefined ? drafts : drafts.map(redact);
}

/** The typed event a draft became: its type and data with the envelope the store gave it. */
export function typedStored(draft: YokeEventDraft, stored: Omit<JournalEvent, "type" | "data">): YokeEvent {
  const { schemaVersion, tenantId, runId, seq, at, causationId, prevHash, hash } = stored;
  // A draft's data is typed with zod's output types, whose optional members may be `undefined`;
  // the journal accepts only drafts with no `undefined` member, so what it stored is the draft's data.
  return { ...draft, schemaVersion, tenantId, runId, seq, at, causationId, prevHash, hash } as YokeEvent;
}
