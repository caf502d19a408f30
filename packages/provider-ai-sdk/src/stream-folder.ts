import type {
  LanguageModelV4Content,
  LanguageModelV4FinishReason,
  LanguageModelV4StreamPart,
  LanguageModelV4ToolCall,
  LanguageModelV4Usage,
  SharedV4ProviderMetadata,
  SharedV4Warning,
} from "@ai-sdk/provider";
import { parseToolArguments, type ModelStreamPart, type ProviderMetadata, type ServerToolCallPart, type ServerToolResultPart } from "@yoke/protocol";
import { serverToolCallOf, serverToolResultOf } from "./server-tools.js";

type Emit = ((part: ModelStreamPart) => void) | undefined;

/** One content block of the answer, in the order the model opened it. */
export type Block =
  | { kind: "text"; text: string }
  | { kind: "reasoning"; text: string; providerMetadata?: ProviderMetadata }
  | { kind: "tool-call"; toolCallId: string; toolName: string; input: string; providerMetadata?: ProviderMetadata }
  /** A call the output limit cut: `input` is what the model had written. */
  | { kind: "truncated"; toolCallId: string; toolName: string; input: string; providerMetadata?: ProviderMetadata }
  | { kind: "server"; part: ServerToolCallPart | ServerToolResultPart };

/** What the bridge folds a stream (or a generate result) into before mapping it. */
export interface FoldedResult {
  blocks: Block[];
  warnings: string[];
  id?: string;
  modelId?: string;
  finishReason?: LanguageModelV4FinishReason;
  usage?: LanguageModelV4Usage;
  providerMetadata?: SharedV4ProviderMetadata;
  /** The first `error` part, if any. */
  error?: { error: unknown };
}

/** A specification warning as one sentence. */
export function warningText(warning: SharedV4Warning): string {
  switch (warning.type) {
    case "unsupported":
      return `${warning.feature} is not supported by the model${warning.details === undefined ? "" : `: ${warning.details}`}`;
    case "compatibility":
      return `${warning.feature} runs in a compatibility mode${warning.details === undefined ? "" : `: ${warning.details}`}`;
    case "deprecated":
      return `${warning.setting} is deprecated: ${warning.message}`;
    default:
      return warning.message;
  }
}

/** Provider metadata as plain JSON (the specification allows `undefined` members; a journal does not). */
export function jsonMetadata(metadata: SharedV4ProviderMetadata | undefined): ProviderMetadata | undefined {
  return metadata === undefined ? undefined : (JSON.parse(JSON.stringify(metadata)) as ProviderMetadata);
}

const merge = (a: ProviderMetadata | undefined, b: SharedV4ProviderMetadata | undefined): ProviderMetadata | undefined => {
  const clean = jsonMetadata(b);
  if (clean === undefined) return a;
  const merged: ProviderMetadata = { ...a };
  for (const [key, value] of Object.entries(clean)) merged[key] = { ...merged[key], ...value };
  return merged;
};

/**
 * Folds the specification's stream parts into blocks, forwarding Yoke stream parts as they
 * arrive: text and reasoning deltas per block id, tool input deltas between a
 * `tool-call-start` and a `tool-call-end` (the final `tool-call` part's `input` is the raw
 * arguments). Provider-executed calls and their final results become server tool parts of
 * `provider`, kept verbatim. When the model finished for `length`, a call whose input
 * started but never completed, or whose input does not parse, was cut by the output limit:
 * it becomes a truncated call (and a `tool-call-truncated` stream part), never a call. When a
 * content filter stopped it, a call still open is kept with what it had written (and withheld).
 * Files, sources and approval requests have no place in a Yoke response: they become warnings.
 */
export class StreamFolder {
  readonly result: FoldedResult = { blocks: [], warnings: [] };
  private readonly open = new Map<string, Block>();
  private readonly inputs = new Map<
    string,
    { toolName: string; text: boolean; started: boolean; deltas: boolean; input: string; providerMetadata?: ProviderMetadata }
  >();
  private readonly emit: Emit;
  private readonly provider: string;

  constructor(emit: Emit, provider: string) {
    this.emit = emit;
    this.provider = provider;
  }

  private server(part: ServerToolCallPart | ServerToolResultPart): void {
    this.result.blocks.push({ kind: "server", part });
    this.emit?.(part.type === "server-tool-call" ? { type: "server-tool-call", part } : { type: "server-tool-result", part });
  }

  // The model stopped at its output limit: calls it was still writing are cut, not calls.
  private truncateCalls(): void {
    for (const [toolCallId, pending] of this.inputs) {
      const { toolName, input, providerMetadata } = pending;
      this.result.blocks.push({ kind: "truncated", toolCallId, toolName, input, ...(providerMetadata === undefined ? {} : { providerMetadata }) });
      this.emit?.({ type: "tool-call-truncated", toolCallId });
    }
    this.inputs.clear();
    this.result.blocks.forEach((block, index) => {
      if (block.kind !== "tool-call" || parseToolArguments(block.input).ok) return;
      this.result.blocks[index] = { ...block, kind: "truncated" };
      this.emit?.({ type: "tool-call-truncated", toolCallId: block.toolCallId });
    });
  }

  // A filter stopped the model: the calls it was still writing are kept, for the record, as
  // calls; `mapFolded` withholds every call of a filtered response, so none can run.
  private keepOpenCalls(): void {
    for (const [toolCallId, pending] of this.inputs) {
      const { toolName, input, providerMetadata } = pending;
      this.result.blocks.push({ kind: "tool-call", toolCallId, toolName, input, ...(providerMetadata === undefined ? {} : { providerMetadata }) });
    }
    this.inputs.clear();
  }

  private skipped(what: string): void {
    const warning = `the model returned ${what}, which a Yoke response does not represent; it was dropped`;
    if (!this.result.warnings.includes(warning)) this.result.warnings.push(warning);
  }

  private toolCall(part: LanguageModelV4ToolCall): void {
    if (part.providerExecuted) return this.server(serverToolCallOf(part, this.provider));
    const pending = this.inputs.get(part.toolCallId);
    this.inputs.delete(part.toolCallId);
    if (pending?.started !== true) this.emit?.({ type: "tool-call-start", toolCallId: part.toolCallId, toolName: part.toolName });
    // Text-encoded input deltas do not concatenate to the JSON arguments: send the final input once.
    if ((pending?.deltas !== true || pending.text) && part.input !== "")
      this.emit?.({ type: "tool-call-delta", toolCallId: part.toolCallId, argumentsDelta: part.input });
    this.emit?.({ type: "tool-call-end", toolCallId: part.toolCallId });
    const metadata = merge(pending?.providerMetadata, part.providerMetadata);
    this.result.blocks.push({
      kind: "tool-call",
      toolCallId: part.toolCallId,
      toolName: part.toolName,
      input: part.input,
      ...(metadata === undefined ? {} : { providerMetadata: metadata }),
    });
  }

  /** Takes one stream part. */
  push(part: LanguageModelV4StreamPart): void {
    switch (part.type) {
      case "stream-start":
        for (const warning of part.warnings) this.result.warnings.push(warningText(warning));
        return;
      case "response-metadata":
        if (part.id !== undefined) this.result.id ??= part.id;
        if (part.modelId !== undefined) this.result.modelId ??= part.modelId;
        return;
      case "text-start": {
        const block: Block = { kind: "text", text: "" };
        this.open.set(`text:${part.id}`, block);
        this.result.blocks.push(block);
        return;
      }
      case "reasoning-start": {
        const metadata = merge(undefined, part.providerMetadata);
        const block: Block = { kind: "reasoning", text: "", ...(metadata === undefined ? {} : { providerMetadata: metadata }) };
        this.open.set(`reasoning:${part.id}`, block);
        this.result.blocks.push(block);
        return;
      }
      case "text-delta":
      case "reasoning-delta": {
        const kind = part.type === "text-delta" ? "text" : "reasoning";
        let block = this.open.get(`${kind}:${part.id}`);
        if (block === undefined) {
          // A delta without its start: open the block here rather than lose the text.
          const opened: Block = { kind, text: "" };
          this.open.set(`${kind}:${part.id}`, opened);
          this.result.blocks.push(opened);
          block = opened;
        }
        if ((block.kind !== "text" && block.kind !== "reasoning") || part.delta === "") return;
        block.text += part.delta;
        if (block.kind === "reasoning" && part.providerMetadata !== undefined) {
          const metadata = merge(block.providerMetadata, part.providerMetadata);
          if (metadata !== undefined) block.providerMetadata = metadata;
        }
        this.emit?.({ type: kind === "text" ? "text-delta" : "reasoning-delta", text: part.delta });
        return;
      }
      case "text-end":
        this.open.delete(`text:${part.id}`);
        return;
      case "reasoning-end": {
        const block = this.open.get(`reasoning:${part.id}`);
        if (block?.kind === "reasoning") {
          const metadata = merge(block.providerMetadata, part.providerMetadata);
          if (metadata !== undefined) block.providerMetadata = metadata;
        }
        this.open.delete(`reasoning:${part.id}`);
        return;
      }
      case "tool-input-start":
        if (part.providerExecuted) return;
        this.inputs.set(part.id, {
          toolName: part.toolName,
          text: part.inputEncoding === "text",
          started: true,
          deltas: false,
          input: "",
          ...(part.providerMetadata === undefined ? {} : { providerMetadata: merge(undefined, part.providerMetadata)! }),
        });
        this.emit?.({ type: "tool-call-start", toolCallId: part.id, toolName: part.toolName });
        return;
      case "tool-input-delta": {
        const pending = this.inputs.get(part.id);
        if (pending === undefined || part.delta === "") return;
        pending.deltas = true;
        pending.input += part.delta;
        if (!pending.text) this.emit?.({ type: "tool-call-delta", toolCallId: part.id, argumentsDelta: part.delta });
        return;
      }
      case "tool-input-end":
        return;
      case "tool-call":
        return this.toolCall(part);
      case "tool-result":
        // Preliminary results are replaced by the final one.
        if (part.preliminary === true) return;
        return this.server(serverToolResultOf(part, this.provider));
      case "tool-approval-request":
        return this.skipped("a tool approval request");
      case "file":
      case "reasoning-file":
        return this.skipped(`a ${part.type} (${part.mediaType})`);
      case "source":
        return this.skipped("a source");
      case "custom":
        return this.skipped(`custom content (${part.kind})`);
      case "finish":
        if (part.finishReason.unified === "length") this.truncateCalls();
        if (part.finishReason.unified === "content-filter") this.keepOpenCalls();
        this.result.finishReason = part.finishReason;
        this.result.usage = part.usage;
        if (part.providerMetadata !== undefined) this.result.providerMetadata = part.providerMetadata;
        return;
      case "error":
        this.result.error ??= { error: part.error };
        return;
      case "ping":
      case "raw":
        return;
      default:
        return;
    }
  }

  /** Takes a `doGenerate` result's content, as if it had streamed. */
  pushContent(content: readonly LanguageModelV4Content[]): void {
    content.forEach((part, index) => {
      switch (part.type) {
        case "text":
          this.push({ type: "text-start", id: `text-${index}` });
          this.push({ type: "text-delta", id: `text-${index}`, delta: part.text });
          return;
        case "reasoning":
          this.push({
            type: "reasoning-start",
            id: `reasoning-${index}`,
            ...(part.providerMetadata === undefined ? {} : { providerMetadata: part.providerMetadata }),
          });
          this.push({ type: "reasoning-delta", id: `reasoning-${index}`, delta: part.text });
          return;
        default:
          this.push(part);
      }
    });
  }
}
