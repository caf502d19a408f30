import {
  EVENT_SCHEMA_VERSION,
  GENESIS_HASH,
  type Clock,
  type EventDraft,
  type IdSource,
  type JournalEvent,
  type JournalV1,
  type ProviderAdapterV1,
  type RunScope,
  type RunState,
  type RunStateAccumulator,
  type YokeEventDraft,
} from "@yoke/protocol";
import type { AnyTool } from "./define-tool.js";
import type { CompletionCheck } from "./harness-types.js";
import type { Logger } from "./logger.js";
import type { Sleep } from "./model-call.js";
import type { CompileConfig, ContextCompiler } from "@yoke/context-compiler";
import { observeCompiled, type CompiledContext } from "./compiled-context.js";
import type { ContextOptions } from "./harness-types.js";
import type { DispatchItem } from "@yoke/scheduler";
import type { ToolExecutor } from "./tool-executor.js";

/** A harness's resolved options: every default filled in, validated once. */
export interface HarnessDeps {
  readonly journal: JournalV1;
  readonly provider: ProviderAdapterV1;
  readonly tools: ReadonlyMap<string, AnyTool>;
  readonly tenantId: string;
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly logger: Logger;
  readonly systemPrompt: string | undefined;
  readonly maxTurns: number;
  readonly checkCompletion: CompletionCheck;
  readonly onEvent: ((event: JournalEvent) => void) | undefined;
  readonly runtimeVersion: string;
  readonly modelRetries: number;
  readonly sleep: Sleep;
  readonly executor: ToolExecutor;
  /** The compile config every run of this harness uses (model and window from the provider). */
  readonly compileConfig: CompileConfig;
  readonly context: ContextOptions;
}

/** One `start` or `resume` of one run: the live fold and what this process has in flight. */
export interface RunContext {
  readonly deps: HarnessDeps;
  readonly scope: RunScope;
  /** Kept current by `commit`; the journal is never re-read while the loop runs. */
  readonly accumulator: RunStateAccumulator;
  readonly signal: AbortSignal | undefined;
  readonly logger: Logger;
  /**
   * Attempts this process journaled as `action.executing` and has not dispatched yet, by
   * attempt id. An executing attempt missing here was journaled by a process that died.
   */
  readonly dispatchable: Map<string, DispatchItem>;
  /** One long-lived compiler per context: a turn costs what is new, not the history. */
  readonly compiler: ContextCompiler;
  readonly compiled: CompiledContext;
}

/**
 * Appends `drafts` as one transaction at the run's current length (optimistic concurrency:
 * a JOURNAL_CONFLICT means another worker owns the run and propagates as is), folds the
 * stored events into the live state, then tells `onEvent` about each, in order.
 */
export async function commit(
  context: RunContext,
  drafts: readonly YokeEventDraft[],
  expectedSeq: number = context.accumulator.peek().length,
): Promise<void> {
  const appended = await context.deps.journal.append(context.scope, expectedSeq, drafts as unknown as readonly EventDraft[]);
  for (const event of appended.events) {
    context.accumulator.apply(event);
    observeCompiled(context.compiled, event);
  }
  context.compiled.staged.clear();
  context.logger.debug(
    { fromSeq: expectedSeq, lastSeq: appended.lastSeq, types: appended.events.map((event) => event.type) },
    "events appended",
  );
  for (const event of appended.events) {
    if (event.type === "run.completed") {
      const state = context.accumulator.peek();
      context.logger.info({ outcome: state.outcome?.status, turns: state.turns, seq: event.seq }, "run completed");
    }
  }
  if (context.deps.onEvent) for (const event of appended.events) context.deps.onEvent(event);
}

/**
 * The state `drafts` would lead to, without writing them: they are folded into a fork of
 * the live accumulator. This is how one transaction can hold both a turn's tool results and
 * the next turn's request, which is built from the state that includes those results.
 */
export function preview(context: RunContext, drafts: readonly YokeEventDraft[], fromSeq: number): RunState {
  const fork = context.accumulator.fork();
  drafts.forEach((draft, index) => {
    fork.apply({
      schemaVersion: EVENT_SCHEMA_VERSION,
      tenantId: context.scope.tenantId,
      runId: context.scope.runId,
      seq: fromSeq + index,
      type: draft.type,
      at: draft.at,
      causationId: draft.causationId ?? null,
      data: draft.data as unknown as JournalEvent["data"],
      prevHash: GENESIS_HASH,
      hash: GENESIS_HASH,
    });
  });
  return fork.peek();
}
