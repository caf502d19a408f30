import { canonicalJson, type Message, type UserPart } from "@yoke/protocol";
import { sha256Hex } from "./artifacts.js";
import type { CompactionPolicy, ContextRevision, SummarizeRequest } from "./compaction-types.js";
import type { TrustLabel } from "./trust.js";

export const DEFAULT_KEEP_RECENT_MESSAGES = 8;
export const DEFAULT_MAX_SUMMARY_CHARS = 4_000;

/**
 * The character cap of a summary: the policy's, and at most a quarter of the compaction
 * target (at ~3 characters per token), so a summary always frees room.
 */
export function summaryCharBudget(policy: CompactionPolicy, available: number): number {
  return Math.max(200, Math.min(policy.maxSummaryChars ?? DEFAULT_MAX_SUMMARY_CHARS, Math.floor(available * policy.threshold * 0.25 * 3)));
}

/** Tokens a summary of `maxChars` characters may take, with its framing. */
export function summaryTokenAllowance(maxChars: number): number {
  return Math.ceil(maxChars / 2.5) + 64;
}

/** Which compaction revision shows each replaced id, and the summaries still shown. */
export interface ResolvedCompactions {
  readonly owner: ReadonlyMap<string, ContextRevision>;
  readonly latest: number;
}

/**
 * Folds compaction revisions: a later revision may replace an earlier summary
 * (`summary:<revision>`), and then takes over the items that summary stood for.
 */
export function resolveCompactions(revisions: readonly ContextRevision[]): ResolvedCompactions {
  const owner = new Map<string, ContextRevision>();
  let latest = 0;
  for (const revision of revisions) {
    latest = Math.max(latest, revision.revision);
    for (const id of revision.replaces) {
      const match = /^summary:(\d+)$/.exec(id);
      if (match === null) {
        owner.set(id, revision);
        continue;
      }
      const earlier = Number(match[1]);
      for (const [item, by] of owner) if (by.revision === earlier) owner.set(item, revision);
    }
  }
  return { owner, latest };
}

const LEAST_TRUSTED_FIRST: readonly TrustLabel[] = ["tool_output", "retrieved", "remote_tool_description", "model", "user", "operator", "system"];

/** The least trusted of the labels: a summary of tool output is still tool output. */
export function leastTrusted(labels: Iterable<TrustLabel>): TrustLabel {
  const present = new Set(labels);
  return LEAST_TRUSTED_FIRST.find((label) => present.has(label)) ?? "model";
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max)}…`;
}

function lineOf(message: Message): string {
  switch (message.role) {
    case "system":
      return `system: ${clip(message.content, 300)}`;
    case "user":
      return `user: ${clip(message.content.map(userPartLine).join(" "), 300)}`;
    case "assistant":
      return message.content
        .map((part) => {
          switch (part.type) {
            case "tool-call":
              return `called ${part.toolName}(${clip(part.rawArguments, 160)})`;
            case "tool-call-truncated":
              return `call to ${part.toolName} cut off by the output limit (not run)`;
            case "tool-call-withheld":
              return `call to ${part.toolName} in a refused response (not run)`;
            // Canonical JSON: the same block gives the same line whether it comes from the provider or the journal.
            case "server-tool-call":
              return `${part.provider} ran ${part.toolName}(${clip(canonicalJson(part.arguments), 160)})`;
            case "server-tool-result":
              return `${part.resultType}: ${clip(canonicalJson(part.raw), 200)}`;
            case "refusal":
              return `refused: ${clip(part.text, 300)}`;
            default:
              return `assistant: ${clip(part.text, 300)}`;
          }
        })
        .join("\n");
    case "tool":
      return message.content
        .map((part) => `${part.toolName} → ${part.result.status}: ${clip(part.result.content.map((text) => text.text).join(" "), 200)}`)
        .join("\n");
  }
}

function visibleSummary(message: Message): string {
  return message.role === "user" ? message.content.map(userPartLine).join("\n") : lineOf(message);
}

/** A user part as a summary line sees it: an image or a file by what it is, never its bytes. */
function userPartLine(part: UserPart): string {
  if (part.type === "text") return part.text;
  return part.type === "image" ? `[image ${part.mediaType}]` : `[file ${part.filename ?? part.mediaType}]`;
}

/**
 * The default summarizer: a deterministic extract of each replaced message (its first
 * words, each tool call and the head of each result), capped at `maxChars`.
 *
 * @example
 * ```ts
 * extractiveSummary({ items: [{ id: "event:4", message }], maxChars: 2_000 });
 * ```
 */
export function extractiveSummary(request: SummarizeRequest): string {
  const lines: string[] = [];
  let length = 0;
  for (const item of request.items) {
    // An earlier summary being folded into this one is kept whole, within the cap.
    const line = item.id.startsWith("summary:") ? visibleSummary(item.message) : `[${item.id}] ${lineOf(item.message)}`;
    if (length + line.length + 1 > request.maxChars) {
      lines.push(`… ${request.items.length - lines.length} more items`);
      break;
    }
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join("\n");
}

/** A transcript message as compaction sees it: shown (not already compacted) and measured. */
export interface CompactionCandidate {
  readonly id: string;
  readonly message: Message;
  readonly trust: TrustLabel;
  readonly tokens: number;
}

/**
 * The ids to replace so that at least `excess` tokens are freed: the oldest shown messages,
 * cut only before a non-tool message (a tool call and its results stay together), never
 * reaching into the newest `keepRecentMessages` nor the open tool pair at `tailStart`.
 * Returns undefined when nothing may be compacted.
 */
export function selectCompaction(
  candidates: readonly CompactionCandidate[],
  tailStart: number,
  excess: number,
  policy: CompactionPolicy,
): CompactionCandidate[] | undefined {
  const limit = Math.min(tailStart, candidates.length - (policy.keepRecentMessages ?? DEFAULT_KEEP_RECENT_MESSAGES));
  let freed = 0;
  let cut = 0;
  for (let index = 0; index < limit; index++) {
    freed += candidates[index]!.tokens;
    const next = candidates[index + 1];
    // A cut after `index` is valid when the next message is not a tool result.
    if (next === undefined || next.message.role !== "tool") {
      if (index + 1 <= limit) cut = index + 1;
      if (freed >= excess) break;
    }
  }
  return cut === 0 ? undefined : candidates.slice(0, cut);
}

/** A new context revision that shows `replaced` (which may start with an earlier summary) as one summary. */
export function makeRevision(
  replaced: readonly CompactionCandidate[],
  previous: ResolvedCompactions,
  summary: string,
  summarizer: ContextRevision["summarizer"],
): ContextRevision {
  return {
    revision: previous.latest + 1,
    parent: previous.latest,
    replaces: replaced.map((item) => item.id),
    summary,
    summaryHash: sha256Hex(summary),
    trust: leastTrusted(replaced.map((item) => item.trust)),
    summarizer,
  };
}
