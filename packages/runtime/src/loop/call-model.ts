import {
  ModelResponseSchema,
  YokeError,
  canonicalJson,
  toolCallsOf,
  withParsedArguments,
  withholdRefusedCalls,
  type ModelResponse,
  type RunState,
  type ToolCallPart,
  type YokeEventDraft,
} from "@yoke/protocol";
import { isExhaustion, type Exhaustion } from "../budget/run-budget.js";
import { admitDispatches, reserveAdmitted, settleAnsweredModelCall } from "../budget/budget-participant.js";
import { settleWork } from "../turn/settle.js";
import { BatchTransaction, type DispatchItem } from "@yoke/scheduler";
import { generateWithRetry, type ModelCallFailure } from "../model-call.js";
import { journaledRequest } from "../request-builder.js";
import { resolveUserMedia } from "../user-media.js";
import type { RunContext } from "../run-context.js";
import { Turn, commitTurn } from "../turn/turn.js";
import { judgeResponseCalls } from "../tool-admission.js";
import type { Blockers } from "../policy-admission.js";
import { admitProposed } from "../turn/admit.js";
import { currentTurn } from "./current-turn.js";
import { commitModelFailure, runFailedDraft } from "./run-failure.js";
import { addNextTurn, cancelledOutcome, runCompleted } from "./next-turn.js";
import { cancelOf, watchInbox } from "../interrupts.js";
import { cancelDrafts, type AbortedCall } from "./cancel-drafts.js";
import { excessCallsDraft } from "./excess-calls.js";
import { rejectedCall } from "./rejected-call.js";
import { boundToolInputs, journaledResponse } from "../bound-input.js";
import { deltaRelay } from "../stream/run-taps.js";

/**
 * Phase `awaiting_response`: the request is journaled (after a resume, recompile it and check its hash), call the
 * model, and commit in one transaction the response and the verdict on each proposed call
 * (`tool.rejected`, or `action.admitted` for the calls that will run; when none will, the next
 * turn's start joins the same transaction). Calls past the run's `maxToolCallsPerTurn` are
 * rejected (TOOL_CALL_LIMIT) together, in one bounded `tool.excess_rejected`. Each failed attempt is journaled as `model.failed` (one append
 * each: only off the happy path); the last one, when no attempt follows, shares its append
 * with the `run.failed` that says the run stopped; the error propagates and the run stays
 * resumable here.
 *
 * A cancellation cuts the call short, at once, even if the provider ignores its signal: the
 * caller's signal, or `interrupt`, which a cancel sent through this harness aborts
 * (`abortLive`) and which the inbox watch aborts when another process cancels the run
 * through the journal while the call is in flight (`watchInbox`). The run then ends
 * `cancelled` in one append: `model.failed` CANCELLED, the call's budget settled, the cancel's
 * `interrupt.landed`, `run.completed` (`cancelDrafts`). An input interrupt never cuts the call.
 */
export async function callModel(context: RunContext, interrupt: AbortController = new AbortController()): Promise<void> {
  const { clock, ids, provider } = context.deps;
  const state = context.accumulator.peek();
  const turnId = currentTurn(state);
  const request = journaledRequest(context, state);
  // The journaled, hashed request holds references to input images and files; the adapter gets their bytes.
  const artifacts = context.deps.artifacts;
  const sent = artifacts === undefined ? request : await resolveUserMedia(request, { artifacts, scope: { tenantId: context.scope.tenantId } }, context.media);
  const startedAt = clock.now();
  const signal = context.signal === undefined ? interrupt.signal : AbortSignal.any([context.signal, interrupt.signal]);
  // Cancelled through this harness since the loop last looked: nothing is asked.
  if (interrupt.signal.aborted) return endCancelled(context, interrupt.signal);
  let response: ModelResponse;
  let last: ModelCallFailure | undefined;
  // The attempt in flight, 0 between attempts (in the wait before a retry).
  let attempt = 0;
  const watch = watchInbox(context, interrupt);
  try {
    response = await generateWithRetry(provider, sent, {
      signal,
      retries: context.deps.modelRetries,
      sleep: context.deps.sleep,
      logger: context.logger,
      timeoutMs: context.deps.modelCallTimeoutMs,
      timers: context.deps.timers,
      // Arguments past the run's limit are dropped first, before normalization copies them.
      accept: (raw) => normalizeResponse(boundToolInputs(raw, state.maxToolInputBytes)),
      onAttempt: (started) => {
        attempt = started;
      },
      onStreamPart: deltaRelay(context, turnId, () => attempt),
      onFailure: async (failure) => {
        attempt = 0;
        // The last failure is journaled with the `run.failed` it leads to, in one transaction.
        if (!failure.retrying) {
          last = failure;
          return;
        }
        // The failure first, then its settlement: each reads the clock in that order.
        const failed = modelFailed(context, turnId, failure);
        await commitTurn(context, settleWork(context, { kind: "failed_model_attempt", failure }).carry([failed]));
      },
    });
  } catch (error) {
    await watch.stop();
    // Cut in an attempt (its `model.failed` says so), or in the wait before a retry (the last attempt's already did).
    if (signal.aborted) return endCancelled(context, interrupt.signal, attempt === 0 ? undefined : { attempt });
    if (last !== undefined) await commitModelFailure(context, [modelFailed(context, turnId, last), runFailedDraft(context, error, last)], error);
    throw error;
  }
  await watch.stop();
  // An answer that lands as the run is cancelled is dropped (its usage settled): the run ends `cancelled` here.
  if (signal.aborted) return endCancelled(context, interrupt.signal, { attempt, dropped: response });
  const latencyMs = Math.max(0, clock.now() - startedAt);
  // The call's settlement rides on its response: no event of its own.
  const settled = settleAnsweredModelCall(context, response);
  // The argument text is journaled once: each call's parse is given back by the fold.
  const journaled = journaledResponse(response);
  let drafts: YokeEventDraft[] = [
    {
      type: "model.responded",
      at: clock.now(),
      causationId: turnId,
      data: {
        turnId,
        response: journaled ?? response,
        latencyMs,
        ...(settled === undefined ? {} : { settled }),
        ...(journaled === undefined ? {} : { argumentsFromRaw: true }),
      },
    },
  ];
  // Judged on what a resume will read back (the parse of the journaled text), never on a copy only this process has.
  const calls = toolCallsOf(journaled === undefined ? response : withParsedArguments(journaled));
  const dispatchable: [string, DispatchItem][] = [];
  const batch = new BatchTransaction({ clock, ids });
  const { decisions, preface } = await judgeResponseCalls(context, state, calls);
  // Compatibility events found while judging share the transaction of the verdicts they led to.
  drafts.push(...preface);
  // A batch is admitted whole or not at all: when its dispatches do not fit, no call runs and the run ends here.
  const exhaustion = admitDispatches(
    context,
    decisions.flatMap((decision) => (decision.kind === "start" ? [{ name: decision.tool.name, timeoutMs: decision.tool.timeoutMs }] : [])),
  );
  if (exhaustion !== undefined) return endExhausted(context, state, turnId, calls, drafts, exhaustion);
  const blockers: Blockers = [];
  const judged = drafts.length;
  const excess = excessCallsDraft(context, state, calls, freshCalls(calls), turnId);
  for (const [index, decision] of decisions.entries()) {
    // The calls past the cap are answered together, bounded however many there are.
    if (excess !== undefined && index === state.maxToolCallsPerTurn) {
      drafts.push(excess);
      break;
    }
    const call = calls[index]!;
    if (decision.kind === "reject") {
      drafts.push(rejectedCall(context, turnId, call, decision.code, decision.message));
      context.logger.info({ turnId, toolName: call.toolName, code: decision.code }, "tool call rejected");
      continue;
    }
    const proposed = { state, batch, turnId, call, accepted: { ...decision, revision: decision.revision }, blockers };
    const admitted = await admitProposed(context, proposed);
    drafts.push(...admitted.drafts);
    if (admitted.item !== undefined) dispatchable.push([admitted.item.attemptId, admitted.item]);
  }
  // Held before the dispatch, on each call's `action.admitted` (a spawn's as `budget.reserved`): in the same transaction.
  const reserved = reserveAdmitted(
    context,
    drafts,
    dispatchable.map(([, item]) => item),
    turnId,
  );
  // What fitted above may not fit now: the clock moved while the policy decided, and the wall time left is too short for
  // the dispatches' share. Then no call of the batch runs, as above: the verdicts since are dropped, never journaled.
  if (isExhaustion(reserved)) return endExhausted(context, state, turnId, calls, drafts.slice(0, judged), reserved);
  drafts = reserved;
  // Nothing left to run or wait for (every call rejected or denied): the next turn shares this transaction. A call held
  // here (`action.proposed`) is held behind a call of this batch parked for approval, whose `action.approval_requested`
  // is in `drafts` too: the test says what waits.
  const waits = drafts.some((draft) => draft.type === "action.approval_requested" || draft.type === "action.proposed");
  const turn = Turn.open(context);
  turn.add(drafts);
  if (calls.length > 0 && dispatchable.length === 0 && !waits) addNextTurn(turn);
  // Only once the admissions are journaled are their attempts this process's to dispatch.
  turn.afterCommit(() => {
    for (const [attemptId, value] of dispatchable) context.dispatchable.set(attemptId, value);
  });
  await turn.commit();
  context.logger.info(
    {
      turnId,
      latencyMs,
      stopReason: response.stopReason,
      toolCalls: calls.length,
      provider: response.provider,
      model: response.model,
      requestId: response.requestId,
    },
    "model responded",
  );
}

/**
 * The response's calls do not fit the budget: each is answered (`tool.rejected`
 * BUDGET_EXHAUSTED; those past the cap together, `tool.excess_rejected`), and the run ends `budget_exhausted` in
 * the response's transaction, its model call settled: nothing was dispatched, nothing is left in flight.
 */
async function endExhausted(
  context: RunContext,
  state: RunState,
  turnId: string,
  calls: readonly ToolCallPart[],
  drafts: YokeEventDraft[],
  exhaustion: Exhaustion,
): Promise<void> {
  const message = `the run's budget has no room for this call (${exhaustion.budget}, limit ${exhaustion.limit}); it did not run`;
  // The calls past the cap keep their one bounded answer: the run's conversation stays bounded however it ends.
  const excess = excessCallsDraft(context, state, calls, freshCalls(calls), turnId);
  for (const call of excess === undefined ? calls : calls.slice(0, state.maxToolCallsPerTurn))
    drafts.push(rejectedCall(context, turnId, call, "BUDGET_EXHAUSTED", message));
  if (excess !== undefined) drafts.push(excess);
  const turn = Turn.open(context);
  const settled = turn.add(drafts);
  context.logger.info(
    { turnId, budget: exhaustion.budget, limit: exhaustion.limit, reservationId: exhaustion.reservationId },
    "tool calls do not fit the budget",
  );
  turn.add([runCompleted(context, settled, exhaustion)]);
  await turn.commit();
}

/**
 * The model call was cut short (`aborted`; undefined: cancelled before it started) by a
 * cancellation: the caller's signal first, else the cancel `interrupted` carries.
 */
async function endCancelled(context: RunContext, interrupted: AbortSignal, aborted?: AbortedCall): Promise<void> {
  const state = context.accumulator.peek();
  if (context.signal?.aborted) {
    await commitTurn(context, cancelDrafts(context, state, { outcome: cancelledOutcome(context.signal) }, aborted));
    return;
  }
  const cancel = cancelOf(interrupted);
  // A guard (the interrupt controller is aborted only with a cancel): unreachable, so its message has no test.
  if (cancel === undefined) throw new YokeError("INTERNAL", "a model call was cancelled without a cancel to land");
  context.logger.info({ interruptId: cancel.interruptId, attempt: aborted?.attempt }, "model call cancelled by an interrupt");
  await commitTurn(context, cancelDrafts(context, state, { interrupt: cancel }, aborted));
}

function modelFailed(context: RunContext, turnId: string, failure: ModelCallFailure): YokeEventDraft {
  return { type: "model.failed", at: context.deps.clock.now(), causationId: turnId, data: { turnId, ...failure } };
}

/**
 * Checks the adapter kept the contract, and drops `undefined` members the journal cannot store.
 * The calls of a refused response are withheld here too, whatever the adapter did: a refusal
 * never runs a tool, and the journal records them as `tool-call-withheld`.
 */
function normalizeResponse(raw: ModelResponse): ModelResponse {
  const parsed = ModelResponseSchema.safeParse(raw);
  if (!parsed.success) {
    throw new YokeError("PROVIDER_RESPONSE_INVALID", `the provider returned a response that is not a ModelResponse: ${parsed.error.message}`, {
      cause: parsed.error,
    });
  }
  // As the journal will give it back: no undefined members, -0 as 0.
  return withholdRefusedCalls(JSON.parse(canonicalJson(parsed.data)) as ModelResponse);
}

/** The pending view of calls no action has started yet (each call only its index). */
function freshCalls(calls: readonly ToolCallPart[]): { index: number }[] {
  return calls.map((_, index) => ({ index }));
}
