import { partText } from "./part-text.js";
import type { AssistantPart, YokeEvent } from "@yoke/protocol";
import { clip, short } from "./clip.js";

function describePart(part: AssistantPart): string {
  switch (part.type) {
    case "tool-call":
      return `${part.toolName}(${clip(part.rawArguments, 40)})`;
    case "tool-call-truncated":
      return `${part.toolName}(${clip(part.rawArguments, 40)}… cut by the output limit)`;
    case "tool-call-withheld":
      return `${part.toolName}(${clip(part.rawArguments, 40)}) withheld: the response was refused`;
    case "text":
      return JSON.stringify(clip(part.text, 50));
    case "refusal":
      return `[refusal] ${JSON.stringify(clip(part.text, 50))}`;
    case "server-tool-call":
      return `[${part.provider} ran ${part.toolName}]`;
    case "server-tool-result":
      return `[${part.resultType}]`;
    case "reasoning":
      return "[reasoning]";
  }
}

const resultText = (result: { content: readonly { text: string }[] }) => JSON.stringify(clip(result.content.map((part) => part.text).join(" "), 50));
const amounts = (value: Record<string, number | undefined>) =>
  Object.entries(value)
    .filter(([, amount]) => amount !== undefined && amount !== 0)
    .map(([name, amount]) => `${name} ${amount}`)
    .join(", ") || "nothing";

/** One line saying what an event records (its type and seq are shown beside it). Untrusted text is clipped, never interpreted. */
export function describeEvent(event: YokeEvent): string {
  switch (event.type) {
    case "run.started":
      return `task ${JSON.stringify(clip(event.data.task))}${event.data.parent ? `, child of ${event.data.parent.runId}` : ""}`;
    case "turn.started":
      return `turn ${event.data.index}${event.data.offered ? `, offered ${event.data.offered.tools.map((tool) => tool.name).join(", ") || "no tools"}` : ""}`;
    case "tool.drifted":
      return `${event.data.toolName} ${event.data.changes.join(", ")}`;
    case "tool.readmitted":
      return `${event.data.toolName}@${short(event.data.revision.digest)} by rule ${event.data.rule}`;
    case "context.compiled": {
      const delta = event.data.manifestDelta as { keep?: number; append?: { decision?: string }[]; set?: { allocation?: { used?: number } } };
      const added = delta.append ?? [];
      const cut = added.filter((item) => item.decision === "truncated").length;
      const omitted = added.filter((item) => item.decision === "omitted").length;
      const used = delta.set?.allocation?.used;
      const extras = [cut > 0 ? `${cut} cut` : "", omitted > 0 ? `${omitted} omitted` : "", event.data.compactions ? "compacted" : ""].filter(Boolean);
      return `manifest: ${delta.keep ?? 0} kept, ${added.length} added${used === undefined ? "" : `, ${used} tokens`}${extras.length > 0 ? ` (${extras.join(", ")})` : ""}`;
    }
    case "model.requested":
      return `${event.data.messageCount} messages, request ${short(event.data.requestHash)}`;
    case "model.responded": {
      const { response } = event.data;
      return `${response.stopReason}: ${response.content.map(describePart).join(", ")} [${response.usage.inputTokens} in, ${response.usage.outputTokens} out]`;
    }
    case "model.failed":
      return `attempt ${event.data.attempt} ${event.data.code}${event.data.retrying ? ", retrying" : ""}`;
    case "tool.rejected":
      return `${event.data.toolName} ${event.data.code}: ${clip(event.data.result.error?.message ?? "", 50)}`;
    case "tool.started":
      return `${event.data.toolName} ${event.data.actionId} attempt ${event.data.attempt}`;
    case "tool.completed":
      return `${event.data.toolName} ${event.data.result.status}: ${resultText(event.data.result)}`;
    case "action.admitted":
      return `${event.data.toolName} ${event.data.actionId} (${event.data.sideEffect}), ${event.data.decision} by ${event.data.rule}`;
    case "action.proposed":
      return `${event.data.toolName} ${event.data.actionId} (${event.data.sideEffect})`;
    case "action.approval_requested":
      return `${event.data.toolName} ${event.data.actionId} waits for approval ${event.data.approvalId}`;
    case "action.authorized":
      return `${event.data.actionId} by ${event.data.rule}`;
    case "action.leased":
      return `${event.data.actionId} attempt ${event.data.attempt}`;
    case "action.committed":
    case "action.failed":
      return `${event.data.actionId} ${event.data.result.status}: ${resultText(event.data.result)}`;
    case "action.uncertain":
      return `${event.data.actionId}: ${clip(event.data.reason)}`;
    case "action.reconciled":
      return `${event.data.actionId}: ${event.data.verdict}`;
    case "action.compensating":
      return `${event.data.actionId}: ${clip(event.data.reason)}`;
    case "action.compensation_failed":
      return `${event.data.actionId}: ${clip(event.data.message)}`;
    case "approval.granted":
      return `${event.data.approvalId} by ${event.data.approver}`;
    case "approval.denied":
      return `${event.data.approvalId} by ${event.data.approver}: ${clip(event.data.reason)}`;
    case "approval.voided":
      return `${event.data.approvalId} ${event.data.code}: ${clip(event.data.reason)}`;
    case "completion.checked":
      return event.data.passed ? "passed" : `failed: ${clip(event.data.reason ?? "")}`;
    case "budget.opened":
      return `limits ${amounts(event.data.limits)}${event.data.pricing ? `, prices ${event.data.pricing.id} (${event.data.pricing.currency})` : ""}`;
    case "budget.reserved":
      return `${event.data.attribution.kind}${event.data.attribution.discarded ? " (discarded)" : ""} holds ${amounts(event.data.amounts)}`;
    case "budget.settled":
      return `${event.data.reservationId} charged ${amounts(event.data.charged)}${event.data.overshoot ? " (overshoot)" : ""}`;
    case "verifier.started":
      return `${event.data.verifierId} (attempt ${event.data.attempt}${event.data.replaySafe ? ", replay-safe" : ""})`;
    case "verifier.finished":
      return `${event.data.verdict.verifierId} ${event.data.verdict.passed ? "passed" : `failed: ${clip(event.data.verdict.reason ?? "")}`}`;
    case "run.waiting":
      return `waits for a person (${event.data.kind}): ${clip(event.data.reason)}`;
    case "loop.detected":
      return `${event.data.toolName} ${event.data.pattern} ×${event.data.count}: ${event.data.response}`;
    case "interrupt.requested":
      return `${event.data.kind} ${event.data.interruptId}: ${clip(event.data.text)}`;
    case "interrupt.landed":
      return `${event.data.kind} ${event.data.interruptId} (inbox seq ${event.data.inboxSeq})`;
    case "input.added":
      return `${event.data.source}: ${JSON.stringify(clip(event.data.content.map(partText).join(" ")))}`;
    case "run.completed": {
      const { outcome } = event.data;
      const reason = "reason" in outcome ? `: ${clip(outcome.reason, 70)}` : "";
      return `${outcome.status} after ${event.data.turns} turns${reason}`;
    }
    case "run.failed":
      return `stopped: ${event.data.code}: ${clip(event.data.message)}; resume to continue`;
    case "release.changed":
      return `${event.data.from.runtime} → ${event.data.to.runtime} (${event.data.differences.map((difference) => difference.field).join(", ")})`;
    case "release.migrated":
      return `${event.data.from.runtime} → ${event.data.to.runtime} by migration ${event.data.migrationId} (${event.data.events} events)`;
    default:
      return "actionId" in event.data ? String(event.data.actionId) : "";
  }
}
