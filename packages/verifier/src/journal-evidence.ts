import type { ActionState, JsonValue, ToolResultEnvelope, YokeEvent } from "@yoke/protocol";

/** One action as the journal tells it: its run, where it stands, and the receipt of its commit. */
export interface ActionEvidence {
  readonly runId: string;
  readonly tenantId: string;
  readonly toolName?: string;
  readonly state: ActionState;
  readonly receipt?: JsonValue;
}

/** What the events hold as evidence: actions by id (per run), tool call ids to action ids (per run), and artifact digests (hex) by run. */
export interface JournalEvidence {
  readonly actions: ReadonlyMap<string, readonly ActionEvidence[]>;
  /** `<tenantId>/<runId>/<toolCallId>` → the action that call proposed (the last one, should a provider reuse a call id). */
  readonly calls: ReadonlyMap<string, string>;
  readonly artifacts: ReadonlyMap<string, readonly { runId: string; tenantId: string }[]>;
}

// Where an action stands after each event type (reconciliation is handled apart).
const STATE_AFTER: Partial<Record<string, ActionState>> = {
  "action.admitted": "executing",
  "action.proposed": "proposed",
  "action.validated": "validated",
  "action.approval_requested": "awaiting_approval",
  "action.authorized": "authorized",
  "action.leased": "leased",
  "action.executing": "executing",
  "action.committed": "committed",
  "action.uncertain": "uncertain",
  "action.failed": "failed",
  "action.compensating": "compensating",
  "action.compensated": "compensated",
  "action.compensation_failed": "compensation_failed",
  // Journals written before action transactions.
  "tool.started": "executing",
};

const hexOf = (hash: string | undefined): string | undefined => {
  const hex = hash?.startsWith("sha256:") ? hash.slice(7) : hash;
  return hex !== undefined && /^[0-9a-f]{64}$/.test(hex) ? hex : undefined;
};

/** Folds the events into the evidence they hold. */
export function journalEvidence(events: readonly YokeEvent[]): JournalEvidence {
  const actions = new Map<string, ActionEvidence[]>();
  const artifacts = new Map<string, { runId: string; tenantId: string }[]>();
  const calls = new Map<string, string>();
  const addArtifact = (hex: string | undefined, event: YokeEvent) => {
    if (hex === undefined) return;
    const holders = artifacts.get(hex) ?? [];
    if (!holders.some((holder) => holder.runId === event.runId && holder.tenantId === event.tenantId))
      holders.push({ runId: event.runId, tenantId: event.tenantId });
    artifacts.set(hex, holders);
  };
  const addResult = (result: ToolResultEnvelope | undefined, event: YokeEvent) => {
    addArtifact(hexOf(result?.truncation?.artifact?.digest), event);
    addArtifact(hexOf(result?.truncation?.artifactHash), event);
  };
  const move = (event: YokeEvent, actionId: string, state: ActionState, extra: { receipt?: JsonValue; toolName?: string } = {}) => {
    const records = actions.get(actionId) ?? [];
    const index = records.findIndex((record) => record.runId === event.runId && record.tenantId === event.tenantId);
    const previous = index === -1 ? undefined : records[index]!;
    const toolName = extra.toolName ?? previous?.toolName;
    const receipt = "receipt" in extra ? extra.receipt : state === "committed" ? undefined : previous?.receipt;
    const next: ActionEvidence = {
      runId: event.runId,
      tenantId: event.tenantId,
      state,
      ...(toolName === undefined ? {} : { toolName }),
      ...(receipt === undefined ? {} : { receipt }),
    };
    if (index === -1) records.push(next);
    else records[index] = next;
    actions.set(actionId, records);
  };

  for (const event of events) {
    switch (event.type) {
      case "context.compiled":
        for (const artifact of event.data.artifacts ?? []) addArtifact(hexOf(artifact.hash), event);
        continue;
      case "tool.rejected":
      case "tool.excess_rejected":
        addResult(event.data.result, event);
        continue;
      case "tool.completed":
        addResult(event.data.result, event);
        move(event, event.data.actionId, event.data.result.status === "ok" ? "committed" : "failed", { toolName: event.data.toolName });
        continue;
      case "action.committed":
        addResult(event.data.result, event);
        move(event, event.data.actionId, "committed", event.data.receipt === undefined ? {} : { receipt: event.data.receipt });
        continue;
      case "action.failed":
        addResult(event.data.result, event);
        move(event, event.data.actionId, "failed");
        continue;
      case "action.reconciled": {
        addResult(event.data.result, event);
        const { verdict, receipt } = event.data;
        const state: ActionState = verdict === "applied" ? "committed" : verdict === "unknown" ? "uncertain" : "authorized";
        move(event, event.data.actionId, state, receipt === undefined ? {} : { receipt });
        continue;
      }
      default: {
        const state = STATE_AFTER[event.type];
        if (state === undefined) continue;
        const data = event.data as { actionId: string; toolName?: string; toolCallId?: string };
        if (data.toolCallId !== undefined) calls.set(callKey(event.tenantId, event.runId, data.toolCallId), data.actionId);
        move(event, data.actionId, state, data.toolName === undefined ? {} : { toolName: data.toolName });
      }
    }
  }
  return { actions, calls, artifacts };
}

/** The key of `JournalEvidence.calls`. */
export function callKey(tenantId: string, runId: string, toolCallId: string): string {
  return `${tenantId}/${runId}/${toolCallId}`;
}
