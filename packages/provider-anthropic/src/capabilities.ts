import type { ProviderCapabilities } from "@yoke/protocol";

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
} as const satisfies Partial<ProviderCapabilities>;

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
  { prefix: "claude-3-5-haiku", family: "claude-3.5-haiku", thinking: false, capabilities: { ...base, inputModalities: ["text", "image"], maxOutputTokens: 8_192 } },
];

const DEFAULT_FAMILY: AnthropicModelFamily = {
  family: "default",
  thinking: false,
  capabilities: { ...base, inputModalities: ["text"], maxOutputTokens: 4_096 },
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
  return row === undefined ? DEFAULT_FAMILY : { family: row.family, thinking: row.thinking, capabilities: row.capabilities };
}
