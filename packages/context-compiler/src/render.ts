// Pure rendering shared by `compile` and `rebuildRequest`: given the decisions in a manifest
// and the items' text, the same messages and bytes come out.
import {
  canonicalJson,
  type JsonValue,
  type Message,
  type ModelRequest,
  type TextPart,
  type ToolResultEnvelope,
  type ToolResultPart,
  type ToolSpec,
} from "@yoke/protocol";
import { sha256Hex, truncateUtf8, utf8Length, type Artifact } from "./artifacts.js";
import type { PartTruncation } from "./manifest-schema.js";
import { compilerNote, isUntrusted, trustRule, wrapContent, type TrustLabel } from "./trust.js";

/** The request fields other than messages; they form the first frame of the bytes. */
export type RequestHeader = Omit<ModelRequest, "messages" | "stablePrefixMessages">;

/** Default trust of a transcript message by role. */
export function defaultTrust(message: Message): TrustLabel {
  switch (message.role) {
    case "system":
      return "system";
    case "user":
      return "user";
    case "assistant":
      return "model";
    case "tool":
      return "tool_output";
  }
}

/** The text a tool result shows the model before truncation: its text parts joined by newlines, else its structured output as canonical JSON. */
export function toolResultText(result: ToolResultEnvelope): string {
  // A fast path only: the join below gives the one part's text too.
  if (result.content.length === 1) return result.content[0]!.text;
  if (result.content.length > 0) return result.content.map((part) => part.text).join("\n");
  return result.output === undefined ? "" : canonicalJson(result.output);
}

/**
 * Which tool-result parts of a message exceed their budget, how much of each is kept, and
 * the full text of each cut (an artifact; its `origin` is `tool_output`). `budgetOf` gives a
 * tool's output budget in UTF-8 bytes. A result whose whole output is stored out of line
 * (`truncation.artifact`) is cut when its inline text was, its note naming that artifact;
 * its full text is not here, so it gives no artifact.
 */
export function planTruncations(message: Message, budgetOf: (toolName: string) => number): { truncations: PartTruncation[]; artifacts: Artifact[] } {
  const truncations: PartTruncation[] = [];
  const artifacts: Artifact[] = [];
  if (message.role !== "tool") return { truncations, artifacts };
  message.content.forEach((part, index) => {
    const text = toolResultText(part.result);
    const budget = budgetOf(part.toolName);
    const stored = part.result.truncation?.artifact;
    if (stored !== undefined) {
      const inlineBytes = utf8Length(text);
      const originalBytes = Math.max(part.result.truncation!.originalBytes, inlineBytes);
      if (inlineBytes <= budget && inlineBytes === originalBytes) return; // only the structured output went out of line
      // Text within `budget` bytes is its own cut: the test only saves the cut.
      const keptBytes = inlineBytes <= budget ? inlineBytes : utf8Length(truncateUtf8(text, budget));
      truncations.push({ part: index, originalBytes, keptBytes, artifactHash: stored.digest.slice("sha256:".length) });
      return;
    }
    // A fast path only: the byte count below decides the same.
    if (text.length <= budget / 3) return; // at most 3 bytes per UTF-16 unit: certainly fits
    const originalBytes = utf8Length(text);
    if (originalBytes <= budget) return;
    const kept = truncateUtf8(text, budget);
    const artifactHash = sha256Hex(text);
    truncations.push({ part: index, originalBytes, keptBytes: utf8Length(kept), artifactHash });
    artifacts.push({ hash: artifactHash, text, origin: "tool_output" });
  });
  return { truncations, artifacts };
}

function renderToolPart(
  part: ToolResultPart,
  index: number,
  id: string,
  trust: TrustLabel,
  nonce: string,
  truncations: readonly PartTruncation[],
): ToolResultPart {
  const result = part.result;
  const cut = truncations.find((entry) => entry.part === index);
  const full = toolResultText(result);
  let text = wrapContent(cut === undefined ? full : truncateUtf8(full, cut.keptBytes), { trust, source: id, nonce });
  if (cut !== undefined) {
    text += `\n${compilerNote(`output truncated: kept ${cut.keptBytes} of ${cut.originalBytes} bytes; the full output is artifact sha256:${cut.artifactHash}`)}`;
  }
  const envelope: ToolResultEnvelope = { status: result.status, content: [{ type: "text", text }], timing: result.timing };
  const truncation = cut === undefined ? result.truncation : { originalBytes: cut.originalBytes, keptBytes: cut.keptBytes, artifactHash: cut.artifactHash };
  // No undefined member: canonical JSON would drop it anyway, the object stays lean.
  if (truncation !== undefined) envelope.truncation = truncation;
  if (result.error !== undefined) {
    envelope.error = { code: result.error.code, message: wrapContent(result.error.message, { trust, source: id, nonce }) };
  }
  return { type: "tool-result", toolCallId: part.toolCallId, toolName: part.toolName, result: envelope };
}

/**
 * A transcript message as the model sees it: tool results cut to their budget and, like
 * any untrusted text, wrapped in provenance delimiters. A message that needs no change is
 * returned as is.
 */
export function renderTranscriptMessage(message: Message, id: string, trust: TrustLabel, nonce: string, truncations: readonly PartTruncation[]): Message {
  switch (message.role) {
    case "tool":
      return { role: "tool", content: message.content.map((part, index) => renderToolPart(part, index, id, trust, nonce, truncations)) };
    case "user":
      // Trusted text is left as it is: nothing to rebuild.
      if (!isUntrusted(trust)) return message;
      // An image or a file cannot carry delimiters: it goes as it is, its provenance in the manifest.
      return {
        role: "user",
        content: message.content.map((part) => (part.type === "text" ? { type: "text", text: wrapContent(part.text, { trust, source: id, nonce }) } : part)),
      };
    case "system":
      return isUntrusted(trust) ? { role: "user", content: [{ type: "text", text: wrapContent(message.content, { trust, source: id, nonce }) }] } : message;
    case "assistant":
      return message;
  }
}

/** The text of each system-message item, in order. */
export interface SystemParts {
  readonly systemPrompt: string | undefined;
  readonly nonce: string;
  readonly constraints: readonly { readonly id: string; readonly text: string }[];
}

export function constraintText(constraint: { readonly id: string; readonly text: string }): string {
  return `- [${constraint.id}] ${constraint.text}`;
}

export const CONSTRAINTS_HEADING = "Pinned constraints (they always apply):";

export function renderSystemMessage(parts: SystemParts): Message {
  const blocks: string[] = [];
  if (parts.systemPrompt !== undefined && parts.systemPrompt !== "") blocks.push(parts.systemPrompt);
  blocks.push(trustRule(parts.nonce));
  if (parts.constraints.length > 0) blocks.push([CONSTRAINTS_HEADING, ...parts.constraints.map(constraintText)].join("\n"));
  return { role: "system", content: blocks.join("\n\n") };
}

export function renderTaskMessage(task: string): Message {
  return { role: "user", content: [{ type: "text", text: task }] };
}

export function summaryText(
  summary: { readonly revision: number; readonly replaces: readonly string[]; readonly summary: string; readonly trust: TrustLabel },
  nonce: string,
): string {
  // Never undefined (a revision replaces at least one item: ContextRevisionSchema).
  const first = summary.replaces[0] ?? "";
  const last = summary.replaces.at(-1) ?? "";
  const note = compilerNote(
    `context revision ${summary.revision}: summary of ${summary.replaces.length} earlier items (${first} … ${last}); the originals remain in the journal`,
  );
  return `${note}\n${wrapContent(summary.summary, { trust: summary.trust, source: `summary:${summary.revision}`, nonce })}`;
}

export function renderSummaryMessage(summary: Parameters<typeof summaryText>[0], nonce: string): Message {
  return { role: "user", content: [{ type: "text", text: summaryText(summary, nonce) }] };
}

export const EVIDENCE_HEADING = compilerNote("context retrieved for this turn");

export function evidenceBlock(item: { readonly id: string; readonly text: string; readonly trust: TrustLabel }, nonce: string): string {
  return isUntrusted(item.trust) ? wrapContent(item.text, { trust: item.trust, source: item.id, nonce }) : `[${item.id}] ${item.text}`;
}

export function renderEvidenceMessage(blocks: readonly string[]): Message {
  const content: TextPart[] = [{ type: "text", text: [EVIDENCE_HEADING, ...blocks].join("\n\n") }];
  return { role: "user", content };
}

/** A tool as offered: a remote tool's description is untrusted data. */
export function renderTool(tool: ToolSpec, trust: TrustLabel, nonce: string): ToolSpec {
  // Trusted text is left as it is: nothing to rebuild.
  if (!isUntrusted(trust)) return tool;
  return { ...tool, description: wrapContent(tool.description, { trust, source: `tool:${tool.name}`, nonce }) };
}

/** The text of a message the model reads, for counting tokens. */
export function visibleText(message: Message): string {
  switch (message.role) {
    case "system":
      return message.content;
    // Images and files are not text: `mediaTokensOf` counts them.
    case "user":
      return message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
    case "assistant":
      return message.content
        .map((part) => {
          switch (part.type) {
            case "tool-call":
              return `${part.toolName} ${part.rawArguments}`;
            case "tool-call-truncated":
            case "tool-call-withheld":
              // Never sent back (not a call, not text): only its name is counted, not the arguments.
              return part.toolName;
            case "server-tool-call":
            case "server-tool-result":
              // Sent back verbatim. Canonical: a block read back from the journal has its keys sorted.
              return canonicalJson(part.raw);
            default:
              return part.text;
          }
        })
        .join("\n");
    case "tool":
      return message.content.length === 1 ? toolPartText(message.content[0]!) : message.content.map(toolPartText).join("\n");
  }
}

function toolPartText(part: ToolResultPart): string {
  const { result } = part;
  // The `=== 1` test is a fast path: the join gives the one part's text too.
  const texts = result.content.length === 1 ? result.content[0]!.text : result.content.map((text) => text.text).join("\n");
  return `${part.toolName} ${result.status} ${texts}${result.error === undefined ? "" : ` ${result.error.message}`}`;
}

/** One frame of the request bytes: canonical JSON, which never contains a raw newline. */
export function frame(value: Message | RequestHeader): string {
  return `${canonicalJson(value)}\n`;
}

/** The request header as rendered (no undefined members, so its canonical form is fixed). */
export function renderHeader(options: {
  readonly tools: readonly ToolSpec[];
  readonly maxOutputTokens: number;
  readonly toolChoice?: ModelRequest["toolChoice"];
  readonly temperature?: number;
  readonly reasoningEffort?: ModelRequest["reasoningEffort"];
  readonly stopSequences?: readonly string[];
  readonly serverTools?: readonly NonNullable<ModelRequest["serverTools"]>[number][];
  readonly providerOptions?: ModelRequest["providerOptions"];
  readonly responseFormat?: ModelRequest["responseFormat"];
}): RequestHeader {
  const header: RequestHeader = { tools: options.tools.slice(), maxOutputTokens: options.maxOutputTokens };
  if (options.toolChoice !== undefined) header.toolChoice = options.toolChoice;
  if (options.temperature !== undefined) header.temperature = options.temperature;
  if (options.reasoningEffort !== undefined) header.reasoningEffort = options.reasoningEffort;
  if (options.stopSequences !== undefined) header.stopSequences = options.stopSequences.slice();
  if (options.serverTools !== undefined) header.serverTools = options.serverTools.slice();
  if (options.providerOptions !== undefined) header.providerOptions = options.providerOptions;
  if (options.responseFormat !== undefined) header.responseFormat = options.responseFormat;
  return header;
}

export function headerAsJson(header: RequestHeader): Record<string, JsonValue> {
  return JSON.parse(canonicalJson(header)) as Record<string, JsonValue>;
}
