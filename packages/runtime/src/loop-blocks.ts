import {
  EVENT_DATA_SCHEMAS,
  RunStateAccumulator,
  YokeError,
  readYokeEvents,
  withholdRefusedCalls,
  type JournalV1,
  type ModelRequest,
  type ModelResponse,
  type ProviderAdapterV1,
  type RunScope,
  type RunState,
  type YokeEventDraft,
  type YokeEventType,
} from "@yoke/protocol";
import type { Timers } from "@yoke/scheduler";
import type { BoundLogger } from "./logger.js";
import { generateWithRetry as generateWithPolicy, realSleep, type ModelCallFailure, type Sleep } from "./model-call.js";

/** A typed draft of one Yoke event: what `JournalV1.append` takes. */
export interface YokeEventDraftOf<T extends YokeEventType> {
  readonly type: T;
  readonly at: number;
  readonly causationId: string | null;
  readonly data: Extract<YokeEventDraft, { type: T }>["data"];
}

/**
 * Builds the draft of one of Yoke's events, checking `data` against the event's schema (the
 * one `parseYokeEvent` and the runtime's reader apply), so a custom loop finds a malformed
 * event when it builds it, not when the runtime reads its journal. Throws EVENT_INVALID.
 *
 * @example
 * ```ts
 * const draft = yokeEventDraft("turn.started", { turnId: "turn_1", index: 1 }, { at: clock.now() });
 * await journal.append(scope, state.length, [draft]);
 * ```
 */
export function yokeEventDraft<T extends YokeEventType>(
  type: T,
  data: YokeEventDraftOf<T>["data"],
  options: { readonly at: number; readonly causationId?: string | null },
): YokeEventDraftOf<T> {
  const schema = EVENT_DATA_SCHEMAS[type];
  if (schema === undefined) throw new YokeError("EVENT_INVALID", `${JSON.stringify(type)} is not one of Yoke's event types`, { details: { type } });
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    throw new YokeError(
      "EVENT_INVALID",
      `${type} data does not match its schema: ${parsed.error.issues.map((issue) => `${issue.path.join(".") || "(data)"}: ${issue.message}`).join("; ")}`,
      {
        details: { type },
      },
    );
  }
  return { type, at: options.at, causationId: options.causationId ?? null, data: parsed.data as YokeEventDraftOf<T>["data"] };
}

/**
 * A run's state folded from its journal (the reducer the runtime resumes with): its phase,
 * transcript, pending tool calls, outcome, and `length` — the `expectedSeq` of the next
 * append. `undefined` when the journal has no such run. Events are read typed and checked
 * (EVENT_INVALID for one that is not Yoke's; JOURNAL_CORRUPT / JOURNAL_CHAIN_BROKEN from the store).
 *
 * @example
 * ```ts
 * const state = await loadRunState(journal, { tenantId: "default", runId });
 * if (state?.phase === "tools_pending") for (const call of state.pendingToolCalls) …
 * await journal.append(scope, state.length, drafts);
 * ```
 */
export async function loadRunState(journal: JournalV1, scope: RunScope): Promise<RunState | undefined> {
  const accumulator = new RunStateAccumulator();
  let any = false;
  for await (const event of readYokeEvents(journal, scope)) {
    accumulator.apply(event);
    any = true;
  }
  return any ? accumulator.snapshot() : undefined;
}

/** Options of `generateWithRetry`; all optional. */
export interface ModelRetryOptions {
  /** Extra attempts after the first, for retryable provider errors (see `isRetryableModelError`). Default 2, as the harness. */
  readonly retries?: number;
  /** Deadline of one attempt in ms; on expiry it fails with PROVIDER_TIMEOUT (retryable). Default 600 000. */
  readonly timeoutMs?: number;
  /** Aborting ends the call and any wait at once with CANCELLED. */
  readonly signal?: AbortSignal;
  /** How to wait between attempts (`modelRetryDelayMs`). Default: a real timer. */
  readonly sleep?: Sleep;
  /** Timers arming each attempt's deadline. Default: the global setTimeout/clearTimeout. */
  readonly timers?: Timers;
  /** Awaited after each failed attempt (journal it as `model.failed`), before the wait or the rethrow. */
  readonly onFailure?: (failure: ModelCallFailure) => Promise<void> | void;
}

const globalTimers: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

const quietLogger: BoundLogger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => quietLogger,
};

/**
 * Calls `provider` with the harness's model retry policy: a retryable provider error
 * (`isRetryableModelError`) is retried up to `retries` times after `modelRetryDelayMs`;
 * anything else, or the last failure, is rethrown as is. Each failed attempt is given to
 * `onFailure` first, in the shape `model.failed` journals. The tool calls of a refused
 * response (stop reason `refusal` or `content_filter`, or a `refusal` part) come back as
 * `tool-call-withheld` parts whatever the adapter returned: nothing in it may run.
 *
 * @example
 * ```ts
 * const response = await generateWithRetry(provider, request, {
 *   retries: 3,
 *   onFailure: (failure) => journal.append(scope, seq++, [yokeEventDraft("model.failed", { turnId, ...failure }, { at: clock.now() })]).then(() => undefined),
 * });
 * ```
 */
export function generateWithRetry(provider: ProviderAdapterV1, request: ModelRequest, options: ModelRetryOptions = {}): Promise<ModelResponse> {
  const onFailure = options.onFailure;
  return generateWithPolicy(provider, request, {
    signal: options.signal,
    retries: options.retries ?? 2,
    sleep: options.sleep ?? realSleep,
    logger: quietLogger,
    timeoutMs: options.timeoutMs ?? 600_000,
    timers: options.timers ?? globalTimers,
    // A refusal never runs a tool, in a custom loop too: its calls come back withheld.
    accept: withholdRefusedCalls,
    onFailure: async (failure) => {
      await onFailure?.(failure);
    },
  });
}
