// Renders journal events as one readable line each, with the budget steps an event carries
// (a reservation or a settlement riding on the work's own event) on a line under it.
import { budgetEntriesOf, type AssistantPart, type BudgetAmounts, type BudgetEntry, type YokeEvent } from "@yoke/protocol";

/** A revision digest as the timeline shows it: its first 12 hex digits. */
const short = (digest: string) => digest.slice(0, 12);

const clip = (text: string, width = 60) => {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat;
};

/** The event's line, and under it the budget steps it carries (`budget: reserved …` / `budget: settled …`). */
export function describeEvent(event: YokeEvent): string {
  const line = describeOne(event);
  // `budget.reserved` / `budget.settled` say it on their own line already.
  if (event.type === "budget.reserved" || event.type === "budget.settled") return line;
  const steps = budgetEntriesOf(event).map(describeBudgetStep);
  return steps.length === 0 ? line : `${line}\n${" ".repeat(26)}budget: ${steps.join("; ")}`;
}

/** One budget step, compactly: what a reservation holds (and for what), or what a settlement charged. */
export function describeBudgetStep(entry: BudgetEntry): string {
  if (entry.kind === "reserved") return `reserved ${amounts(entry.data.amounts)} (${entry.data.attribution.kind})`;
  return `settled ${amounts(entry.data.charged)}${entry.data.overshoot ? " (overshoot)" : ""}`;
}

/** Left out of a step's line: the split of `tokens` (when it is there) and the concurrency gauge, which the report at the end details. */
const DETAIL = new Set(["input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "concurrency"]);

/** `turns 1, tokens 2148, spend 4500`: each dimension with a non-zero amount, as journaled, but the details. */
function amounts(values: BudgetAmounts): string {
  const shown = Object.entries(values).filter(
    ([dimension, value]) => value !== undefined && value !== 0 && !(DETAIL.has(dimension) && (dimension === "concurrency" || values.tokens !== undefined)),
  );
  return shown.length === 0 ? "nothing" : shown.map(([dimension, value]) => `${dimension} ${value}`).join(", ");
}

function describeOne(event: YokeEvent): string {
  const head = `  #${String(event.seq).padStart(2)}  ${event.type.padEnd(20)}`;
  switch (event.type) {
    case "run.started": {
      const snapshot = event.data.toolSnapshot;
      const pinned =
        snapshot === undefined
          ? ""
          : `\n${" ".repeat(26)}pinned tools ${short(snapshot.digest)}: ${snapshot.revisions.map((revision) => `${revision.name}@${short(revision.digest)}`).join(", ")}`;
      return `${head} task: ${JSON.stringify(clip(event.data.task))}${pinned}`;
    }
    case "turn.started": {
      const offered = event.data.offered;
      return `\n${head} turn ${event.data.index}${offered === undefined ? "" : `, offered ${offered.tools.map((tool) => tool.name).join(", ") || "no tools"} (${short(offered.digest)})`}`;
    }
    case "tool.drifted": {
      const renamed = event.data.renamedTo === undefined ? "" : ` to ${event.data.renamedTo}`;
      const from = event.data.pinned === null ? "not pinned" : `pinned ${short(event.data.pinned)}`;
      const to = event.data.offered === null ? "gone" : `now ${short(event.data.offered)}`;
      return `${head} ${event.data.toolName} ${event.data.changes.join(", ")}${renamed}: ${from}, ${to}`;
    }
    case "tool.readmitted":
      return `${head} ${event.data.toolName}@${short(event.data.revision.digest)} by rule ${event.data.rule}`;
    case "context.compiled": {
      const delta = event.data.manifestDelta as { keep?: number; append?: { decision?: string }[]; set?: { allocation?: { used?: number } } };
      const added = delta.append ?? [];
      const cut = added.filter((item) => item.decision === "truncated").length;
      const artifacts = event.data.artifacts?.length ?? 0;
      const extras = [
        cut > 0 ? `${cut} cut` : "",
        artifacts > 0 ? `${artifacts} artifact${artifacts === 1 ? "" : "s"} kept` : "",
        event.data.compactions ? "compacted" : "",
      ].filter(Boolean);
      const used = delta.set?.allocation?.used;
      const tokens = used === undefined ? "" : `, ${used} tokens`;
      return `${head} manifest: ${delta.keep ?? 0} items kept, ${added.length} added${tokens}${extras.length > 0 ? ` (${extras.join(", ")})` : ""}`;
    }
    case "model.requested":
      return `${head} ${event.data.messageCount} messages, request ${event.data.requestHash.slice(0, 12)}`;
    case "model.responded": {
      const parts = event.data.response.content.map(describePart);
      return `${head} ${event.data.response.stopReason}: ${parts.join(", ")}`;
    }
    case "tool.rejected":
      return `${head} ${event.data.toolName} ${event.data.code}: ${clip(event.data.result.error?.message ?? "", 50)}`;
    case "tool.started":
      return `${head} ${event.data.toolName} ${event.data.actionId} attempt ${event.data.attempt}`;
    case "tool.completed": {
      const result = event.data.result;
      const text = result.content.map((part) => part.text).join(" ");
      return `${head} ${event.data.toolName} ${result.status}: ${JSON.stringify(clip(text, 50))}`;
    }
    case "model.failed":
      return `${head} attempt ${event.data.attempt} ${event.data.code}${event.data.retrying ? ", retrying" : ""}${event.data.requestId ? ` (request ${event.data.requestId})` : ""}`;
    case "run.failed":
      return `\n${head} stopped: ${event.data.code}${event.data.requestId ? ` (request ${event.data.requestId})` : ""}; resume to continue`;
    case "completion.checked":
      return `${head} ${event.data.passed ? "passed" : `failed: ${event.data.reason ?? ""}`}`;
    case "input.added":
      return `${head} ${event.data.source}: ${JSON.stringify(clip(event.data.content.map((part) => (part.type === "text" ? part.text : `[${part.type} ${part.mediaType}]`)).join(" ")))}`;
    case "run.completed": {
      const outcome = event.data.outcome;
      const detail = outcome.status === "escalated" ? `: ${clip(outcome.reason, 70)}` : "";
      return `\n${head} ${outcome.status} after ${event.data.turns} turns${detail}`;
    }
    case "action.proposed":
      return `${head} ${event.data.toolName} ${event.data.actionId} (${event.data.sideEffect})`;
    case "action.admitted":
      return `${head} ${event.data.toolName}${event.data.toolRevision === undefined ? "" : `@${short(event.data.toolRevision)}`} ${event.data.actionId} (${event.data.sideEffect}) attempt ${event.data.attempt}, ${event.data.decision} by ${event.data.rule}`;
    case "action.leased":
      return `${head} ${event.data.actionId} attempt ${event.data.attempt}`;
    case "action.committed":
    case "action.failed": {
      const text = event.data.result.content.map((part) => part.text).join(" ");
      return `${head} ${event.data.actionId} ${JSON.stringify(clip(text, 50))}`;
    }
    case "action.uncertain":
      return `${head} ${event.data.actionId}: ${clip(event.data.reason, 60)}`;
    case "action.reconciled":
      return `${head} ${event.data.actionId}: ${event.data.verdict}`;
    case "budget.opened":
      return `${head} limits ${JSON.stringify(event.data.limits)}${event.data.pricing ? `, prices ${event.data.pricing.id}` : ""}`;
    case "budget.reserved":
      return `${head} ${event.data.attribution.kind} holds ${JSON.stringify(event.data.amounts)}`;
    case "budget.settled":
      return `${head} charged ${JSON.stringify(event.data.charged)}${event.data.overshoot ? " (overshoot)" : ""}`;
    case "action.compensation_failed":
      return `${head} ${event.data.actionId}: ${clip(event.data.message, 60)}`;
    case "verifier.started":
      return `${head} ${event.data.verifierId} (attempt ${event.data.attempt}${event.data.replaySafe ? ", replay-safe" : ""})`;
    case "verifier.finished": {
      const verdict = event.data.verdict;
      return `${head} ${verdict.verifierId} ${verdict.passed ? "passed" : `failed: ${clip(verdict.reason ?? "", 60)}`}`;
    }
    case "run.waiting":
      return `${head} waits for a person (${event.data.kind}): ${clip(event.data.reason, 60)}`;
    case "loop.detected":
      return `${head} ${event.data.toolName} ${event.data.pattern} ×${event.data.count}: ${event.data.response}`;
    default:
      return `${head} ${"actionId" in event.data ? String(event.data.actionId) : ""}`;
  }
}

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
