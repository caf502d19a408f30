import { awaitingApprovals, budgetEntriesOf, reduceRun, type RunState, withParsedArguments, type PolicyDecision, type YokeEvent } from "@yoke/protocol";
import { argumentsDigest } from "./recorded-outcomes.js";

/**
 * What the runtime decided about one tool call the model proposed: `admitted` (it ran, or was
 * to run), `refused` (never ran: unknown tool, invalid input, a policy's deny, the call limit;
 * `code` says which), `parked` (a policy or the tool asked a person), or `proposed` (an
 * action not yet authorized when the run stopped).
 */
export type CallDecisionKind = "admitted" | "refused" | "parked" | "proposed";

/** One proposed call, its decision and how it ended. */
export interface CallDecision {
  /** 1-based turn of the run the call was proposed in. */
  readonly turn: number;
  readonly toolName: string;
  /** SHA-256 of the canonical JSON of the arguments the model sent. */
  readonly argumentsDigest: string;
  readonly decision: CallDecisionKind;
  /** The rule the runtime admitted it under (`action.admitted.rule`), or the policy's rule id. */
  readonly rule?: string;
  /** The policy engine's verdict, when one decided. */
  readonly policy?: { readonly effect: PolicyDecision["effect"]; readonly ruleId: string };
  /** The refusal's error code, or the failed attempt's. */
  readonly code?: string;
  /** `committed`, `failed`, `uncertain`, `reconciled_<verdict>`, `approval_granted`, `approval_denied`, `approval_voided`; absent while none. */
  readonly outcome?: string;
}

/** What a run spent: the model's reported usage and the budget's charges by dimension. */
export interface RunSpend {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly charged: Readonly<Record<string, number>>;
}

/** Timings from the events' `at` (the run's injected clock) and the journaled latencies. */
export interface RunLatency {
  /** From `run.started` to the last event. */
  readonly elapsedMs: number;
  /** Sum of `model.responded.latencyMs`. */
  readonly modelMs: number;
  /** Sum of the settled tool results' `timing.durationMs`. */
  readonly toolMs: number;
}

/** One run, summarized for comparison. */
export interface RunSummary {
  readonly runId: string;
  /** The outcome's status; for a run without one, `waiting_<kind>` (`waiting_approval`, `waiting_refusal`, …) or its phase. */
  readonly outcome: string;
  readonly turns: number;
  readonly events: number;
  readonly calls: readonly CallDecision[];
  readonly spend: RunSpend;
  readonly latency: RunLatency;
}

interface MutableCall {
  turn: number;
  toolName: string;
  argumentsDigest: string;
  decision: CallDecisionKind;
  rule?: string;
  policy?: { effect: PolicyDecision["effect"]; ruleId: string };
  code?: string;
  outcome?: string;
}

/** Summarizes a run from its events (as `harness.events(runId)` yields them). */
export function summarizeRun(events: readonly YokeEvent[]): RunSummary {
  const state = reduceRun(events);
  const calls: MutableCall[] = [];
  // The last response's calls in proposal order, with the model's call ids (which may repeat).
  let proposed: { toolCallId: string; call: MutableCall }[] = [];
  const byAction = new Map<string, MutableCall>();
  const charged: Record<string, number> = {};
  let turn = 0;
  let inputTokens = 0;
  let outputTokens = 0;
  let modelMs = 0;
  let toolMs = 0;
  const callOf = (toolCallId: string) =>
    (
      proposed.find((entry) => entry.toolCallId === toolCallId && entry.call.decision === "proposed") ??
      proposed.find((entry) => entry.toolCallId === toolCallId)
    )?.call;
  for (const event of events) {
    for (const entry of budgetEntriesOf(event)) {
      if (entry.kind !== "settled") continue;
      for (const [dimension, amount] of Object.entries(entry.data.charged)) charged[dimension] = (charged[dimension] ?? 0) + (amount ?? 0);
    }
    switch (event.type) {
      case "turn.started":
        turn += 1;
        break;
      case "model.responded": {
        const response = withParsedArguments(event.data.response);
        inputTokens += response.usage?.inputTokens ?? 0;
        outputTokens += response.usage?.outputTokens ?? 0;
        modelMs += event.data.latencyMs;
        proposed = [];
        for (const part of response.content) {
          if (part.type !== "tool-call") continue;
          const call: MutableCall = {
            turn,
            toolName: part.toolName,
            argumentsDigest: argumentsDigest(part.arguments ?? part.rawArguments),
            decision: "proposed",
          };
          proposed.push({ toolCallId: part.toolCallId, call });
          calls.push(call);
        }
        break;
      }
      case "tool.rejected":
        decide(callOf(event.data.toolCallId), "refused", { code: event.data.code, policy: event.data.policy });
        break;
      case "tool.excess_rejected":
        for (const entry of proposed.slice(event.data.fromIndex, event.data.fromIndex + event.data.count))
          decide(entry.call, "refused", { code: event.data.code });
        break;
      case "action.admitted":
        bind(byAction, event.data.actionId, callOf(event.data.toolCallId));
        decide(byAction.get(event.data.actionId), "admitted", { rule: event.data.rule, policy: event.data.policy });
        break;
      case "action.proposed":
        bind(byAction, event.data.actionId, callOf(event.data.toolCallId));
        break;
      case "action.authorized":
        decide(byAction.get(event.data.actionId), "admitted", { rule: event.data.rule, policy: event.data.policy });
        break;
      case "action.approval_requested":
        bind(byAction, event.data.actionId, callOf(event.data.toolCallId));
        decide(byAction.get(event.data.actionId), "parked", { policy: event.data.policy });
        break;
      case "approval.granted":
      case "approval.denied":
      case "approval.voided":
        settle(byAction.get(event.data.actionId), event.type.replace(".", "_"));
        break;
      case "action.committed":
        toolMs += event.data.result.timing.durationMs;
        settle(byAction.get(event.data.actionId), "committed");
        break;
      case "action.failed":
        if (event.data.retrying) break;
        toolMs += event.data.result.timing.durationMs;
        settle(byAction.get(event.data.actionId), "failed", event.data.result.error?.code);
        break;
      case "action.uncertain":
        settle(byAction.get(event.data.actionId), "uncertain");
        break;
      case "action.reconciled":
        settle(byAction.get(event.data.actionId), `reconciled_${event.data.verdict}`);
        break;
      default:
        break;
    }
  }
  const first = events[0];
  const last = events.at(-1);
  return {
    runId: state.runId,
    outcome: outcomeOf(state),
    turns: state.turns,
    events: events.length,
    calls: calls.map((call) => ({ ...call })),
    spend: { inputTokens, outputTokens, charged },
    latency: { elapsedMs: first === undefined || last === undefined ? 0 : last.at - first.at, modelMs, toolMs },
  };
}

function outcomeOf(state: RunState): string {
  if (state.outcome !== undefined) return state.outcome.status;
  if (awaitingApprovals(state).length > 0) return "waiting_approval";
  return state.waiting === undefined ? state.phase : `waiting_${state.waiting.kind}`;
}

function bind(byAction: Map<string, MutableCall>, actionId: string, call: MutableCall | undefined): void {
  if (call !== undefined) byAction.set(actionId, call);
}

function decide(
  call: MutableCall | undefined,
  decision: CallDecisionKind,
  facts: { rule?: string | undefined; code?: string | undefined; policy?: PolicyDecision | undefined },
): void {
  if (call === undefined) return;
  call.decision = decision;
  if (facts.rule !== undefined) call.rule = facts.rule;
  if (facts.code !== undefined) call.code = facts.code;
  if (facts.policy !== undefined) {
    call.policy = { effect: facts.policy.effect, ruleId: facts.policy.ruleId };
    call.rule ??= facts.policy.ruleId;
  }
}

function settle(call: MutableCall | undefined, outcome: string, code?: string): void {
  if (call === undefined) return;
  call.outcome = outcome;
  if (code !== undefined && call.decision !== "refused") call.code = code;
}
