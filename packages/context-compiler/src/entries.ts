// Rendered messages with their frame, byte length, token count and manifest items, cached by
// source object so a turn renders and tokenizes only what is new.
import { canonicalJson, type Message, type ToolSpec } from "@yoke/protocol";
import { sha256Hex, utf8Length, type Artifact } from "./artifacts.js";
import type { ContextRevision } from "./compaction-types.js";
import type { EvidenceItem, PinnedConstraint, SourceMessage } from "./input.js";
import type { ManifestItem, ManifestTool } from "./manifest-schema.js";
import { mediaTokensOf, type MediaTokenRule } from "./media-tokens.js";
import {
  constraintText,
  defaultTrust,
  evidenceBlock,
  frame,
  planTruncations,
  renderSystemMessage,
  renderTaskMessage,
  renderTool,
  renderTranscriptMessage,
  summaryText,
  visibleText,
  type RequestHeader,
} from "./render.js";
import type { TokenCounter } from "./tokenizer.js";
import { trustRule, type TrustLabel } from "./trust.js";

/** A rendered message and what it costs. */
export interface Entry {
  readonly message: Message;
  readonly frame: string;
  readonly frameBytes: number;
  /** Tokens of its items (framing overhead is charged separately). */
  readonly tokens: number;
  readonly items: readonly ManifestItem[];
  readonly artifacts: readonly Artifact[];
}

function entryOf(message: Message, tokens: number, items: ManifestItem[], artifacts: Artifact[]): Entry {
  const text = frame(message);
  return { message, frame: text, frameBytes: utf8Length(text), tokens, items, artifacts };
}

export interface ToolsEntry {
  readonly tools: readonly ToolSpec[];
  readonly manifest: readonly ManifestTool[];
  readonly tokens: number;
}

/** Tools sorted by name (they are a set), remote descriptions wrapped, each digested (and its registry revision, when given). */
export function toolsEntry(
  tools: readonly ToolSpec[],
  remote: ReadonlySet<string>,
  nonce: string,
  counter: TokenCounter,
  revisions?: Readonly<Record<string, string>>,
): ToolsEntry {
  const sorted = tools.slice().sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const rendered: ToolSpec[] = [];
  const manifest: ManifestTool[] = [];
  let total = 0;
  for (const tool of sorted) {
    const trust: TrustLabel = remote.has(tool.name) ? "remote_tool_description" : "operator";
    const shown = renderTool(tool, trust, nonce);
    const tokens = counter.count(canonicalJson(shown));
    rendered.push(shown);
    const revision = revisions === undefined || !Object.hasOwn(revisions, tool.name) ? undefined : revisions[tool.name];
    manifest.push({ name: tool.name, digest: sha256Hex(canonicalJson(tool)), ...(revision === undefined ? {} : { revision }), trust, tokens });
    total += tokens;
  }
  return { tools: rendered, manifest, tokens: total };
}

export function headerFrame(header: RequestHeader): { frame: string; frameBytes: number } {
  const text = frame(header);
  return { frame: text, frameBytes: utf8Length(text) };
}

/** The system message: system prompt, the trust rule, then pinned constraints (sorted by id). */
export function systemEntry(systemPrompt: string | undefined, nonce: string, constraints: readonly PinnedConstraint[], counter: TokenCounter): Entry {
  const sorted = constraints.slice().sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const message = renderSystemMessage({ systemPrompt, nonce, constraints: sorted });
  const items: ManifestItem[] = [];
  const artifacts: Artifact[] = [];
  if (systemPrompt !== undefined && systemPrompt !== "") {
    items.push({
      id: "system",
      kind: "system_prompt",
      trust: "system",
      section: "system",
      decision: "included",
      message: 0,
      tokens: counter.count(systemPrompt),
    });
  }
  items.push({
    id: "trust-rule",
    kind: "trust_rule",
    trust: "system",
    section: "system",
    decision: "included",
    message: 0,
    tokens: counter.count(trustRule(nonce)),
  });
  for (const constraint of sorted) {
    const hash = sha256Hex(constraint.text);
    artifacts.push({ hash, text: constraint.text });
    items.push({
      id: constraint.id,
      kind: "constraint",
      trust: "operator",
      section: "constraints",
      decision: "included",
      message: 0,
      tokens: counter.count(constraintText(constraint)),
      contentHash: hash,
    });
  }
  return entryOf(
    message,
    items.reduce((sum, item) => sum + item.tokens, 0),
    items,
    artifacts,
  );
}

export function taskEntry(task: string, counter: TokenCounter): Entry {
  const tokens = counter.count(task);
  return entryOf(renderTaskMessage(task), tokens, [{ id: "task", kind: "task", trust: "user", section: "task", decision: "included", message: 1, tokens }], []);
}

export function summaryEntry(revision: ContextRevision, index: number, nonce: string, counter: TokenCounter): Entry {
  const text = summaryText(revision, nonce);
  const tokens = counter.count(text);
  const item: ManifestItem = {
    id: `summary:${revision.revision}`,
    kind: "summary",
    trust: revision.trust,
    section: "summary",
    decision: "included",
    message: index,
    tokens,
    contentHash: revision.summaryHash,
    replaces: revision.replaces.slice(),
  };
  return entryOf({ role: "user", content: [{ type: "text", text }] }, tokens, [item], [{ hash: revision.summaryHash, text: revision.summary }]);
}

/** A transcript message, cut to tool budgets and wrapped by trust, with its one manifest item; its images and files counted by `mediaRule`. */
export function transcriptEntry(
  source: SourceMessage,
  index: number,
  nonce: string,
  budgetOf: (toolName: string) => number,
  counter: TokenCounter,
  mediaRule: MediaTokenRule,
): Entry {
  const trust = source.trust ?? defaultTrust(source.message);
  const { truncations, artifacts } = planTruncations(source.message, budgetOf);
  const message = renderTranscriptMessage(source.message, source.id, trust, nonce, truncations);
  const tokens = counter.count(visibleText(message)) + mediaTokensOf(message, mediaRule);
  const item: ManifestItem = {
    id: source.id,
    kind: "message",
    trust,
    section: "transcript",
    decision: truncations.length > 0 ? "truncated" : "included",
    message: index,
    tokens,
  };
  if (truncations.length > 0) item.truncations = truncations;
  return entryOf(message, tokens, [item], artifacts);
}

/** The same entry moved to another message index (after a compaction). */
export function reindexed(entry: Entry, index: number): Entry {
  if (entry.items.every((item) => item.message === index)) return entry;
  return { ...entry, items: entry.items.map((item) => ({ ...item, message: index })) };
}

export interface EvidenceEntry {
  readonly item: EvidenceItem;
  readonly trust: TrustLabel;
  readonly block: string;
  readonly tokens: number;
  readonly hash: string;
}

export function evidenceEntry(item: EvidenceItem, nonce: string, counter: TokenCounter): EvidenceEntry {
  const trust = item.trust ?? "retrieved";
  const block = evidenceBlock({ id: item.id, text: item.text, trust }, nonce);
  return { item, trust, block, tokens: counter.count(block), hash: sha256Hex(item.text) };
}
