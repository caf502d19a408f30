import {
  type ArtifactStoreV2,
  EVENT_SCHEMA_VERSION,
  YokeError,
  withInputFromCall,
  type AppendResult,
  GENESIS_HASH,
  type Clock,
  type IdSource,
  type JournalEvent,
  type JournalV1,
  type PolicyEngineV1,
  type ProviderAdapterV1,
  type RunScope,
  type RunState,
  type RunStateAccumulator,
  type AnyToolDeclaration,
  type ToolRegistryV1,
  type YokeEvent,
  type YokeEventDraft,
} from "@yoke/protocol";
import type { AnyTool } from "./define-tool.js";
import type { CompletionCheck } from "./harness-types.js";
import type { BoundLogger as Logger } from "./logger.js";
import type { Sleep } from "./model-call.js";
import type { CompileConfig, ContextCompiler } from "@yoke/context-compiler";
import { observeCompiled, type CompiledContext } from "./compiled-context.js";
import type { ContextOptions } from "./harness-types.js";
import type { DispatchItem, Timers } from "@yoke/scheduler";
import type { ToolExecutor } from "./tool-executor.js";
import type { ResolvedOutput } from "./structured-output.js";
import type { HeldLease, LeasePolicy } from "./run-lease.js";
import type { DiscoveryOption } from "./pinned-tools.js";
import type { Redactor } from "./redaction.js";
import type { LoopControl } from "./loop-control.js";
import { observeRunFacts, type RunFacts } from "./loop/run-facts.js";
import type { InterruptInbox, ResolvedInterrupts } from "./loop-control.js";
import type { ResolvedBudget } from "./budget/budget-options.js";
import type { RunBudget } from "./budget/run-budget.js";
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
  /** Kept current by `preview` and `commit`; the journal is never re-read while the loop runs. */
  readonly accumulator: RunStateAccumulator;
  readonly signal: AbortSignal | undefined;
  readonly logger: Logger;
  /**
   * Attempts this process journaled as executing (`action.admitted` or `action.executing`)
   * and has not dispatched yet, by attempt id. An executing attempt missing here was
   * journaled by a process that died.
   */
  readonly dispatchable: Map<string, DispatchItem>;
  /** One long-lived compiler per context: a turn costs what is new, not the history. */
  readonly compiler: ContextCompiler;
  readonly compiled: CompiledContext;
  readonly fold: FoldAhead;
  /** The run's lease this process holds (when the journal offers leases): every append carries it. */
  readonly lease: HeldLease | undefined;
  /** Declarations of the tool revisions this process admitted or resolved, by revision digest. */
  readonly revisions: Map<string, AnyToolDeclaration>;
  /** Loop detection, the verifier gate's progress, landed interrupts: folded from the same events as `accumulator`. */
  readonly facts: RunFacts;
  /** The run's interrupt inbox as this process last read it. */
  readonly inbox: InterruptInbox;
  /** The run's budget ledger and open reservations (rebuilt from `budget.*` events on resume); inert for a run without a budget. */
  readonly budget: RunBudget;
}

/**
 * Drafts folded into the live state ahead of their append, and the error of a failed fold
 * or append. The live accumulator runs ahead of the journal between `preview` and `commit`;
 * after a failure it may stay ahead, so the context refuses to fold or append again (a
 * `resume` starts afresh from the journal).
 */
export interface FoldAhead {
  /** `written`: the drafts as they are journaled (an action's input that is its call's arguments as `inputFromCall`). */
  staged: { readonly drafts: readonly YokeEventDraft[]; readonly written: readonly YokeEventDraft[]; readonly fromSeq: number } | undefined;
  /**
   * `journalLength`: set when the journal refused the append whole before writing anything
   * (JOURNAL_EVENT_TOO_LARGE), so the journal is known to end there and `run.failed` can follow.
   */
  failure: { readonly error: unknown; readonly journalLength?: number } | undefined;
}

export function createFoldAhead(): FoldAhead {
  return { staged: undefined, failure: undefined };
}

/**
 * Appends `drafts` as one transaction at the run's current length (optimistic concurrency:
 * a JOURNAL_CONFLICT means another worker owns the run and propagates as is), then tells
 * `onEvent` about each stored event, in order. The drafts are folded into the live state
 * before the write, so one that does not follow from the state is refused (EVENT_INVALID)
 * and never journaled; drafts a `preview` already folded must come first, as the same objects.
 */
export async function commit(context: RunContext, raw: readonly YokeEventDraft[], expectedSeq?: number): Promise<void> {
  const { fold, accumulator } = context;
  const drafts = redacted(context, raw);
  if (fold.failure !== undefined) throw fold.failure.error;
  const staged = fold.staged;
  fold.staged = undefined;
  let fromSeq = expectedSeq ?? accumulator.length;
  let folded = 0;
  if (staged !== undefined) {
    if (staged.drafts.some((draft, index) => draft !== drafts[index]) || (expectedSeq !== undefined && expectedSeq !== staged.fromSeq)) {
      throw new YokeError("INTERNAL", "a commit must begin with the drafts its preview folded");
    }
    fromSeq = staged.fromSeq;
    folded = staged.drafts.length;
  }
  let appended: AppendResult;
  try {
    const written = staged === undefined ? [] : staged.written.slice();
    for (let index = folded; index < drafts.length; index++) written.push(foldDraft(context, drafts[index]!, fromSeq + index));
    appended = await (context.lease === undefined
      ? context.deps.journal.append(context.scope, fromSeq, written)
      : context.deps.journal.append(context.scope, fromSeq, written, { lease: context.lease.current() }));
  } catch (error) {
    // The live state may already hold some of the drafts: it no longer matches the journal.
    fold.failure = YokeError.hasCode(error, "JOURNAL_EVENT_TOO_LARGE") ? { error, journalLength: fromSeq } : { error };
    throw error;
  }
  accumulator.acknowledge({ length: appended.lastSeq + 1, hash: appended.headHash });
  // Typed from the drafts, which the fold validated: no event is parsed twice.
  const stored = appended.events.map((event, index) => typedStored(drafts[index]!, event));
  for (const event of stored) observeCompiled(context.compiled, event);
  context.compiled.staged.clear();
  context.logger.debug({ fromSeq, lastSeq: appended.lastSeq, types: appended.events.map((event) => event.type) }, "events appended");
  for (const event of stored) {
    if (event.type === "run.completed") {
      const state = accumulator.peek();
      context.logger.info({ outcome: state.outcome?.status, turns: state.turns, seq: event.seq }, "run completed");
    }
  }
  if (context.deps.onEvent) for (const event of stored) context.deps.onEvent(event);
}

/**
 * The state `drafts` lead to, before they are written: they are folded into the live state
 * now and the next `commit` must begin with them. A second preview before the commit extends
 * the first (`fromSeq` is where the first ends); the commit begins with both, in order. This is how one transaction holds both a
 * turn's tool results and the next turn's request, built from the state with those results.
 * The returned state is live: read it before the next fold.
 */
export function preview(context: RunContext, raw: readonly YokeEventDraft[], fromSeq: number): RunState {
  const { fold, accumulator } = context;
  const drafts = redacted(context, raw);
  if (fold.failure !== undefined) throw fold.failure.error;
  const staged = fold.staged;
  if (staged === undefined ? fromSeq !== accumulator.length : fromSeq !== staged.fromSeq + staged.drafts.length) {
    throw new YokeError("INTERNAL", "a preview must start at the committed length, or where the staged preview ends");
  }
  const written: YokeEventDraft[] = [];
  try {
    for (const [index, draft] of drafts.entries()) written.push(foldDraft(context, draft, fromSeq + index));
  } catch (error) {
    fold.failure = { error };
    throw error;
  }
  fold.staged =
    staged === undefined
      ? { drafts: drafts.slice(), written, fromSeq }
      : { drafts: [...staged.drafts, ...drafts], written: [...staged.written, ...written], fromSeq: staged.fromSeq };
  return accumulator.peek();
}

/**
 * Folds one draft into the live state (and the run facts) and returns it as it is journaled:
 * an action's input that is exactly its call's arguments is kept once, in the response
 * (`withInputFromCall`); the live state, the facts and `onEvent` see the draft with its input,
 * as a resume's fold gives it back.
 */
function foldDraft(context: RunContext, draft: YokeEventDraft, seq: number): YokeEventDraft {
  const written = context.accumulator.length === 0 ? draft : withInputFromCall(context.accumulator.peek(), draft);
  observeRunFacts(context.facts, context.accumulator.apply(provisional(context, draft, seq)));
  return written;
}

/** The drafts as they may be folded and written: the harness's secrets cut out (the same objects when none occurs). */
export function redacted(context: RunContext, drafts: readonly YokeEventDraft[]): readonly YokeEventDraft[] {
  const redact = context.deps.redactDraft;
  return redact === undefined ? drafts : drafts.map(redact);
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

/** The typed event a draft became: its type and data with the envelope the store gave it. */
export function typedStored(draft: YokeEventDraft, stored: Omit<JournalEvent, "type" | "data">): YokeEvent {
  const { schemaVersion, tenantId, runId, seq, at, causationId, prevHash, hash } = stored;
  // A draft's data is typed with zod's output types, whose optional members may be `undefined`;
  // the journal accepts only drafts with no `undefined` member, so what it stored is the draft's data.
  return { ...draft, schemaVersion, tenantId, runId, seq, at, causationId, prevHash, hash } as YokeEvent;
}
