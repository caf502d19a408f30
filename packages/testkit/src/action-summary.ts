import { parseYokeEvent, type JournalEvent, type ReconcileVerdict } from "@yoke/protocol";

/** How one action that went through `uncertain` was resolved. */
export interface UncertainAction {
  readonly actionId: string;
  readonly toolName: string;
  /** The reconciliation's verdict, or `escalated` when the run stopped with it uncertain. */
  readonly resolution: ReconcileVerdict | "escalated" | "unresolved";
}

export interface ActionSummary {
  readonly uncertain: UncertainAction[];
  /**
   * Attempts after the first that neither a retryable failure nor a reconciliation
   * (`not_applied` or `retry_safe`) allowed: blind retries. Must be 0.
   */
  readonly silentRetries: number;
  /** Final state of each action, by tool name and proposal order (`book_hotel#1: compensated`). */
  readonly finalStates: string[];
}

/**
 * What a run's journal says about its actions: which went through `uncertain` and how that
 * was resolved, and whether any attempt was made without a journaled reason.
 *
 * @example
 * ```ts
 * const summary = summarizeActions(events);
 * summary.silentRetries; // 0
 * ```
 */
export function summarizeActions(events: readonly JournalEvent[]): ActionSummary {
  const tools = new Map<string, string>();
  const state = new Map<string, string>();
  const allowed = new Set<string>();
  const uncertain = new Map<string, UncertainAction>();
  let silentRetries = 0;
  for (const raw of events) {
    const event = parseYokeEvent(raw);
    if (!event.type.startsWith("action.")) {
      if (event.type === "run.completed" && event.data.outcome.status === "escalated") {
        // The run stopped for a human: every action it left uncertain (reconciliation
        // `unknown`, or no reconciler) is in the escalation, named in its reason.
        for (const entry of uncertain.values()) if (entry.resolution === "unknown") uncertain.set(entry.actionId, { ...entry, resolution: "escalated" });
      }
      continue;
    }
    const data = event.data as { actionId: string };
    switch (event.type) {
      case "action.proposed":
      case "action.admitted":
        tools.set(data.actionId, `${event.data.toolName}`);
        break;
      case "action.leased":
        if (event.data.attempt > 1 && !allowed.delete(data.actionId)) silentRetries += 1;
        break;
      case "action.failed":
        if (event.data.retrying) allowed.add(data.actionId);
        break;
      case "action.uncertain":
        uncertain.set(data.actionId, { actionId: data.actionId, toolName: tools.get(data.actionId) ?? "?", resolution: "unresolved" });
        break;
      case "action.reconciled": {
        const entry = uncertain.get(data.actionId);
        if (entry) uncertain.set(data.actionId, { ...entry, resolution: event.data.verdict });
        if (event.data.verdict === "not_applied" || event.data.verdict === "retry_safe") allowed.add(data.actionId);
        break;
      }
    }
    state.set(data.actionId, stateAfter(event.type, event.type === "action.reconciled" ? event.data.verdict : undefined));
  }
  const finalStates = [...tools].map(([actionId, toolName]) => `${toolName}: ${state.get(actionId) ?? "?"}`);
  return { uncertain: [...uncertain.values()], silentRetries, finalStates };
}

function stateAfter(type: string, verdict: ReconcileVerdict | undefined): string {
  if (type === "action.admitted") return "executing";
  if (type !== "action.reconciled") return type.slice("action.".length);
  return verdict === "applied" ? "committed" : verdict === "unknown" ? "uncertain" : "authorized";
}
