import type { ModelRequest, ModelResponse, ServerToolCallPart, ServerToolResultPart, Usage } from "./model.js";
import type { StopReason } from "./model.js";

/**
 * What a model family can and cannot do. Adapters report it instead of flattening
 * differences; the runtime refuses (PROVIDER_ADMISSION_REJECTED) a request the target cannot
 * represent, before any network call.
 */
export interface ProviderCapabilities {
  readonly inputModalities: readonly ("text" | "image" | "audio" | "file")[];
  readonly outputModalities: readonly ("text" | "image" | "audio")[];
  readonly toolCalls: boolean;
  readonly parallelToolCalls: boolean;
  /** `strict-subset`: JSON Schema limited to what the provider's strict mode accepts. */
  readonly structuredOutput: "none" | "strict-subset" | "json-schema";
  readonly streaming: boolean;
  /** Whether aborting the signal stops the work on the provider's side. */
  readonly cancellation: boolean;
  readonly usage: { readonly cacheReadTokens: boolean; readonly cacheWriteTokens: boolean; readonly reasoningTokens: boolean };
  /** Tokens of input plus output the model accepts. */
  readonly contextWindow: number;
  readonly maxOutputTokens: number;
  /** `breakpoints`: the request marks cacheable prefixes; `automatic`: the provider finds them. */
  readonly promptCaching: "none" | "automatic" | "breakpoints";
  /** How many `stopSequences` a request may carry; absent or 0: none. */
  readonly maxStopSequences?: number;
  /** Whether function tools can be `strict` (arguments constrained to the schema). Absent: no. */
  readonly strictTools?: boolean;
  /** The provider tool types (`ServerToolSpec.type`) the adapter can declare. Absent: none. */
  readonly serverTools?: readonly string[];
}

/** Parts of a streamed response. A stream ends with exactly one `finish`. */
export type ModelStreamPart =
  | { type: "text-delta"; text: string }
  | { type: "reasoning-delta"; text: string }
  | { type: "refusal-delta"; text: string }
  | { type: "tool-call-start"; toolCallId: string; toolName: string }
  | { type: "tool-call-delta"; toolCallId: string; argumentsDelta: string }
  | { type: "tool-call-end"; toolCallId: string }
  /** The output limit cut this call's arguments: it becomes a `tool-call-truncated` part, never a call. */
  | { type: "tool-call-truncated"; toolCallId: string }
  /**
   * The response was refused or filtered: this call, started above, will not run (it is a
   * `tool-call-withheld` part of the response). Emitted for each such call before `finish`.
   */
  | { type: "tool-call-withheld"; toolCallId: string }
  | { type: "server-tool-call"; part: ServerToolCallPart }
  | { type: "server-tool-result"; part: ServerToolResultPart }
  | { type: "finish"; response: ModelResponse };

export interface GenerateOptions {
  /** Aborting cancels the call; the adapter rejects with a CANCELLED YokeError. */
  signal?: AbortSignal;
  /** Called with each streamed part when the adapter streams; the result is the same. */
  onStreamPart?: (part: ModelStreamPart) => void;
}

/**
 * A model behind one provider's API, normalized.
 *
 * @example
 * ```ts
 * const response = await adapter.generate({ messages, tools: [] });
 * if (response.stopReason === "tool_use") { ... }
 * ```
 */
export interface ProviderAdapterV1 {
  readonly specificationVersion: "v1";
  /** Provider id, e.g. `openai`, `anthropic`, `scripted`. */
  readonly provider: string;
  /** The model id requested. The response names the revision that answered. */
  readonly modelId: string;
  readonly capabilities: ProviderCapabilities;
  /**
   * Calls the model once. Rejects with a YokeError: PROVIDER_RATE_LIMITED (with
   * `details.retryAfterMs`), PROVIDER_UNAVAILABLE, PROVIDER_STREAM_CUT, CANCELLED, …
   * Adapters do not retry; the runtime owns retries.
   */
  generate(request: ModelRequest, options?: GenerateOptions): Promise<ModelResponse>;
  /**
   * The admission check `generate` runs first, alone: the warnings for settings it would drop,
   * or a PROVIDER_ADMISSION_REJECTED throw. Optional; the runtime runs it on each request it
   * compiles, before journaling it, so a request the model cannot take is never journaled.
   */
  admit?(request: ModelRequest): readonly string[];
}

/** Totals two usages (for budgets and reports). */
export function addUsage(a: Usage, b: Usage): Usage {
  const sum = (x?: number, y?: number) => (x === undefined && y === undefined ? undefined : (x ?? 0) + (y ?? 0));
  const total: Usage = { inputTokens: a.inputTokens + b.inputTokens, outputTokens: a.outputTokens + b.outputTokens };
  const cacheRead = sum(a.cacheReadTokens, b.cacheReadTokens);
  const cacheWrite = sum(a.cacheWriteTokens, b.cacheWriteTokens);
  const reasoning = sum(a.reasoningTokens, b.reasoningTokens);
  if (cacheRead !== undefined) total.cacheReadTokens = cacheRead;
  if (cacheWrite !== undefined) total.cacheWriteTokens = cacheWrite;
  if (reasoning !== undefined) total.reasoningTokens = reasoning;
  if (a.uncachedInputTokens !== undefined || b.uncachedInputTokens !== undefined) {
    total.uncachedInputTokens = total.inputTokens - (cacheRead ?? 0) - (cacheWrite ?? 0);
  }
  if (a.totalTokens !== undefined || b.totalTokens !== undefined) total.totalTokens = total.inputTokens + total.outputTokens;
  if (a.serverToolUse !== undefined || b.serverToolUse !== undefined) {
    const uses: Record<string, number> = { ...a.serverToolUse };
    for (const [name, count] of Object.entries(b.serverToolUse ?? {})) uses[name] = (uses[name] ?? 0) + count;
    total.serverToolUse = uses;
  }
  return total;
}

export type { StopReason };
