import { YokeError, type Clock, type ToolAccess, type AnyToolDeclaration } from "@yoke/protocol";
import { retriesAfter, type AttemptOutcome, type DispatchItem } from "./attempts.js";
import { conflictPredecessors, defaultAccess } from "./conflicts.js";
import { DispatchSlots } from "./dispatch-slots.js";
import { errorEnvelope, messageOf, outputEnvelope } from "./envelopes.js";

export type { AttemptOutcome, DispatchItem } from "./attempts.js";

/** Timers the scheduler arms deadlines with. Tests inject fake ones; nothing sleeps on the wall clock. */
export interface Timers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  // Cleared once the attempt settles: a timer left armed would keep the process up until the deadline.
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export interface ExecuteBatchOptions {
  readonly clock: Clock;
  readonly timers?: Timers;
  /** The run's signal: aborting it cancels what has not been dispatched and abandons what has. */
  readonly signal?: AbortSignal | undefined;
  /** The fencing token of the run's lease, handed to every handler as `context.fencingToken`. */
  readonly fencingToken?: number | undefined;
  /**
   * At most this many handlers of the batch run at once (a positive integer; default: no
   * limit). The others wait for a slot, in the order they become ready (proposal order among
   * calls ready together); a deadline or cancellation while waiting fails the call as not
   * dispatched. A handler abandoned at its deadline or on cancellation frees its slot.
   */
  readonly maxConcurrent?: number | undefined;
  /** Told when a handler is invoked and when it settles, by index (for tracing and tests). */
  readonly onDispatch?: (index: number, phase: "start" | "end") => void;
}

/** The access set of one call: the tool's declared function of its input, or its class's default. */
export function accessOf(tool: AnyToolDeclaration, input: unknown): ToolAccess {
  return tool.access ? tool.access(input) : defaultAccess(tool.sideEffect);
}

/**
 * Codes a handler's error keeps in its result (any other is TOOL_FAILED): a child run that
 * ended without a result (SUBAGENT_FAILED), arguments valid by the tool's schema that the
 * tool itself refused (TOOL_INPUT_INVALID: e.g. a reference to something that does not exist),
 * and a resource no capability can be minted for (CAPABILITY_RESOURCE_INVALID: a path that
 * climbs above its root, say; the tool's own handler never ran).
 */
const KEPT_CODES = ["SUBAGENT_FAILED", "TOOL_INPUT_INVALID", "CAPABILITY_RESOURCE_INVALID"] as const;

/**
 * Runs a batch of leased attempts, conflict-aware: each waits for the earlier ones it
 * conflicts with (see `conflictPredecessors`), the rest run at once. Never rejects; one
 * outcome per item, in input order:
 * - the handler returned: `committed`;
 * - it threw: `failed` (retryable if the error says so), except a TOOL_OUTCOME_UNKNOWN
 *   error from a tool with effects, which is `uncertain`; the result's code is TOOL_FAILED,
 *   or the error's own when it is one the model can act on (`KEPT_CODES`);
 * - deadline or cancellation before dispatch: `failed` with `dispatched: false`
 *   (a timeout is retryable); after dispatch: `uncertain` for a tool with effects (a `none`
 *   tool simply fails);
 * - an earlier conflicting call did not settle for good (a failure it will retry, an
 *   uncertain outcome, or a deferral): `deferred`, not dispatched. A later attempt of the
 *   earlier call must not land after this one, or the effects would not follow proposal order.
 *
 * With `maxConcurrent`, a call ready to run also waits for a free slot. Throws CONFIG_INVALID
 * (synchronously) when `maxConcurrent` is not a positive integer.
 */
export function executeBatch(items: readonly DispatchItem[], options: ExecuteBatchOptions): Promise<AttemptOutcome[]> {
  const { maxConcurrent } = options;
  if (maxConcurrent !== undefined && (!Number.isInteger(maxConcurrent) || maxConcurrent < 1)) {
    throw new YokeError("CONFIG_INVALID", "executeBatch: maxConcurrent must be a positive integer", { details: { option: "maxConcurrent" } });
  }
  const slots = maxConcurrent === undefined ? undefined : new DispatchSlots(maxConcurrent);
  const predecessors = conflictPredecessors(items.map((item) => accessOf(item.tool, item.input)));
  const done: Promise<AttemptOutcome>[] = [];
  items.forEach((item, index) => {
    const waitFor = predecessors[index]!.map((earlier) => done[earlier]!.then((outcome) => !settledForGood(items[earlier]!, outcome)));
    done.push(runItem(item, index, waitFor, options, slots));
  });
  return Promise.all(done);
}

/** Whether no later attempt of the item can follow this outcome. */
function settledForGood(item: DispatchItem, outcome: AttemptOutcome): boolean {
  switch (outcome.kind) {
    case "committed":
      return true;
    case "failed":
      return !retriesAfter(item, outcome);
    case "uncertain":
    case "deferred":
      return false;
  }
}

/** `waitFor` resolves, per earlier conflicting item, whether it left this one to a later round. */
async function runItem(
  item: DispatchItem,
  index: number,
  waitFor: Promise<boolean>[],
  options: ExecuteBatchOptions,
  slots: DispatchSlots | undefined,
): Promise<AttemptOutcome> {
  const { clock } = options;
  const timers = options.timers ?? realTimers;
  const startedAt = clock.now();
  const deadline = new AbortController();
  const timer = timers.setTimeout(
    () => deadline.abort(new YokeError("TOOL_TIMEOUT", `deadline of ${item.tool.name} passed`)),
    Math.max(0, item.deadlineAt - clock.now()),
  );
  const signal = options.signal ? AbortSignal.any([deadline.signal, options.signal]) : deadline.signal;
  // Only the run's signal can be aborted already (the deadline fires later); the check before
  // dispatch below refuses a call then too.
  const aborted = new Promise<"aborted">((resolve) => {
    if (signal.aborted) resolve("aborted");
    else signal.addEventListener("abort", () => resolve("aborted"), { once: true });
  });
  const timedOut = () => deadline.signal.aborted;
  const hasEffects = item.tool.sideEffect !== "none";
  try {
    if (waitFor.length > 0) {
      const earlier = await Promise.race([Promise.all(waitFor), aborted]);
      if (earlier === "aborted") return notDispatched(item, timedOut(), startedAt, clock);
      if (earlier.some((unsettled) => unsettled)) return { kind: "deferred" };
    }
    if (slots !== undefined && !(await slots.acquire(signal))) return notDispatched(item, timedOut(), startedAt, clock);
    if (signal.aborted) {
      slots?.release();
      return notDispatched(item, timedOut(), startedAt, clock);
    }
    options.onDispatch?.(index, "start");
    const context = {
      actionId: item.actionId,
      idempotencyKey: item.actionId,
      attemptId: item.attemptId,
      attempt: item.attempt,
      signal,
      ...(options.fencingToken === undefined ? {} : { fencingToken: options.fencingToken }),
    };
    try {
      const output = await Promise.race([
        Promise.resolve().then(() => item.tool.execute(item.input, context)),
        aborted.then(() => {
          throw signal.reason;
        }),
      ]);
      const { result, receipt } = await outputEnvelope(item.tool, output, startedAt, clock);
      return { kind: "committed", result, receipt };
    } catch (error) {
      if (signal.aborted) {
        const what = timedOut() ? `did not finish within ${item.tool.timeoutMs} ms` : "was cancelled while it ran";
        if (!hasEffects) {
          const code = timedOut() ? "TOOL_TIMEOUT" : "CANCELLED";
          return { kind: "failed", result: errorEnvelope(code, `the tool ${what} and was abandoned`, startedAt, clock), retryable: false, dispatched: true };
        }
        return { kind: "uncertain", reason: `the tool ${what}; its effect may or may not have happened` };
      }
      if (hasEffects && YokeError.hasCode(error, "TOOL_OUTCOME_UNKNOWN")) {
        return { kind: "uncertain", reason: messageOf(error) };
      }
      const retryable = YokeError.isInstance(error) && error.code !== "TOOL_FAILED" && error.retryable;
      // A child run that ended without a result, or arguments the tool found wrong (past their schema), keep
      // their own code: the model is told what failed.
      const code = KEPT_CODES.find((kept) => YokeError.hasCode(error, kept)) ?? "TOOL_FAILED";
      return { kind: "failed", result: errorEnvelope(code, messageOf(error), startedAt, clock), retryable, dispatched: true };
    } finally {
      slots?.release();
      options.onDispatch?.(index, "end");
    }
  } finally {
    timers.clearTimeout(timer);
  }
}

function notDispatched(item: DispatchItem, timedOut: boolean, startedAt: number, clock: Clock): AttemptOutcome {
  if (timedOut) {
    const result = errorEnvelope("TOOL_TIMEOUT", `the deadline passed before ${item.tool.name} could start; it did not run`, startedAt, clock);
    return { kind: "failed", result, retryable: true, dispatched: false };
  }
  const result = errorEnvelope("CANCELLED", "the run was cancelled before this call was dispatched; it did not run", startedAt, clock);
  return { kind: "failed", result, retryable: false, dispatched: false };
}
