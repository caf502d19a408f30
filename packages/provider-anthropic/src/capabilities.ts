import type { ProviderCapabilities } from "@yoke/protocol";
import { ANTHROPIC_SERVER_TOOL_TYPES } from "./server-tools.js";

/** What one Anthropic model family can do; `thinking` families accept extended thinking. */
export interface AnthropicModelFamily {
  readonly family: string;
  readonly thinking: boolean;
  readonly capabilities: ProviderCapabilities;
}

const base = {
  inputModalities: ["text", "image", "file"],
  outputModalities: ["text"],
  toolCalls: true,
  parallelToolCalls: true,
  // Messages has no strict output-schema mode in this adapter; admission refuses one.
  structuredOutput: "none",
  streaming: true,
  cancellation: true,
  usage: { cacheReadTokens: true, cacheWriteTokens: true, reasoningTokens: true },
  contextWindow: 200_000,
  promptCaching: "breakpoints",
  // The Messages API reference (and the SDK's doc of stop_sequences) sets no count limit: a
  // generous bound, far above any real use, that only stops a runaway list before the call.
  maxStopSequences: 8_191,
  serverTools: ANTHROPIC_SERVER_TOOL_TYPES,
} as const satisfies Partial<ProviderCapabilities>;

/**
 * Models with strict tool use (structured outputs, generally available on Claude Opus 4.5 and
 * later, Sonnet 4.5 and later, Haiku 4.5 and later): Claude 4 models of minor version 5 or
 * more. Earlier Claude 4 models, Claude 3 and unlisted models have none; admission refuses a
 * strict tool for them (override with `capabilities: { strictTools: true }`).
 */
const STRICT_TOOLS = /^claude-(opus|sonnet|haiku)-4-([5-9]|[1-9]\d)(?!\d)/;

/**
 * The capability matrix, most specific prefix first (published limits; 1M-token context is
 * a beta and not assumed). A model that is not listed gets the conservative `default` row.
 */
export const ANTHROPIC_MODEL_FAMILIES: readonly (AnthropicModelFamily & { readonly prefix: string })[] = [
  { prefix: "claude-opus-4-5", family: "claude-opus-4.5", thinking: true, capabilities: { ...base, maxOutputTokens: 64_000 } },
  { prefix: "claude-opus-4", family: "claude-opus-4", thinking: true, capabilities: { ...base, maxOutputTokens: 32_000 } },
  { prefix: "claude-sonnet-4", family: "claude-sonnet-4", thinking: true, capabilities: { ...base, maxOutputTokens: 64_000 } },
  { prefix: "claude-haiku-4", family: "claude-haiku-4", thinking: true, capabilities: { ...base, maxOutputTokens: 64_000 } },
  { prefix: "claude-3-7-sonnet", family: "claude-3.7-sonnet", thinking: true, capabilities: { ...base, maxOutputTokens: 64_000 } },
  {
    prefix: "claude-3-5-haiku",
    family: "claude-3.5-haiku",
    thinking: false,
    capabilities: { ...base, inputModalities: ["text", "image"], maxOutputTokens: 8_192 },
  },
];

// An unlisted model: no server tools either (declare them with `capabilities` if it has them).
const { serverTools: _serverTools, ...conservative } = base;
const DEFAULT_FAMILY: AnthropicModelFamily = {
  family: "default",
  thinking: false,
  capabilities: { ...conservative, inputModalities: ["text"], maxOutputTokens: 4_096 },
};

/**
 * The family row for a model id (`claude-sonnet-4-5-20250929` → `claude-sonnet-4`).
 *
 * @example
 * ```ts
 * anthropicModelFamily("claude-3-5-haiku-latest").capabilities.maxOutputTokens; // 8192
 * ```
 */
export function anthropicModelFamily(modelId: string): AnthropicModelFamily {
  const row = ANTHROPIC_MODEL_FAMILIES.find((candidate) => modelId.startsWith(candidate.prefix));
  if (row === undefined) return DEFAULT_FAMILY;
  const capabilities = STRICT_TOOLS.test(modelId) ? { ...row.capabilities, strictTools: true } : row.capabilities;
  return { family: row.family, thinking: row.thinking, capabilities };
}
