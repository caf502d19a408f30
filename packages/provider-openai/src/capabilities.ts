import type { ProviderCapabilities } from "@yoke/protocol";

/** Which OpenAI endpoint an adapter calls. */
export type OpenAIApi = "responses" | "chat";

/**
 * What one OpenAI model family can do. `reasoning` families spend reasoning tokens, take
 * `developer` instead of `system` messages, reject `temperature`, and hand back encrypted
 * reasoning items that must be sent again on the next turn when nothing is stored server-side.
 */
export interface OpenAIModelFamily {
  readonly family: string;
  readonly reasoning: boolean;
  readonly capabilities: ProviderCapabilities;
}

const base = {
  inputModalities: ["text", "image", "file"],
  outputModalities: ["text"],
  toolCalls: true,
  parallelToolCalls: true,
  structuredOutput: "strict-subset",
  streaming: true,
  cancellation: true,
  promptCaching: "automatic",
} as const satisfies Partial<ProviderCapabilities>;

const withReasoning = { cacheReadTokens: true, cacheWriteTokens: false, reasoningTokens: true } as const;
const withoutReasoning = { cacheReadTokens: true, cacheWriteTokens: false, reasoningTokens: false } as const;

/**
 * The capability matrix, most specific prefix first. Context sizes are the published ones;
 * a model that is not listed gets the conservative `default` row (override it with
 * `capabilities` in the factory).
 */
export const OPENAI_MODEL_FAMILIES: readonly (OpenAIModelFamily & { readonly prefix: string })[] = [
  { prefix: "gpt-5", family: "gpt-5", reasoning: true, capabilities: { ...base, usage: withReasoning, contextWindow: 400_000, maxOutputTokens: 128_000 } },
  { prefix: "o4", family: "o-series", reasoning: true, capabilities: { ...base, usage: withReasoning, contextWindow: 200_000, maxOutputTokens: 100_000 } },
  { prefix: "o3", family: "o-series", reasoning: true, capabilities: { ...base, usage: withReasoning, contextWindow: 200_000, maxOutputTokens: 100_000 } },
  { prefix: "o1", family: "o-series", reasoning: true, capabilities: { ...base, usage: withReasoning, contextWindow: 200_000, maxOutputTokens: 100_000 } },
  {
    prefix: "gpt-4.1",
    family: "gpt-4.1",
    reasoning: false,
    capabilities: { ...base, usage: withoutReasoning, contextWindow: 1_047_576, maxOutputTokens: 32_768 },
  },
  { prefix: "gpt-4o", family: "gpt-4o", reasoning: false, capabilities: { ...base, usage: withoutReasoning, contextWindow: 128_000, maxOutputTokens: 16_384 } },
];

const DEFAULT_FAMILY: OpenAIModelFamily = {
  family: "default",
  reasoning: false,
  capabilities: { ...base, inputModalities: ["text"], usage: withoutReasoning, contextWindow: 128_000, maxOutputTokens: 16_384 },
};

/** Chat Completions' documented limit on `stop` (up to 4 sequences). */
const CHAT_MAX_STOP_SEQUENCES = 4;

/**
 * A family's capabilities on one endpoint. Strict function tools exist on both APIs for any
 * model that calls tools. Stop sequences exist only on Chat Completions (`stop`, up to 4) and
 * not for reasoning models, which the reference says reject it; the Responses API has no
 * stop parameter, so there `maxStopSequences` is 0.
 *
 * @example
 * ```ts
 * openAICapabilities(openAIModelFamily("gpt-4.1-mini"), "chat").maxStopSequences; // 4
 * openAICapabilities(openAIModelFamily("gpt-4.1-mini"), "responses").maxStopSequences; // 0
 * ```
 */
export function openAICapabilities(family: OpenAIModelFamily, api: OpenAIApi): ProviderCapabilities {
  const { capabilities, reasoning } = family;
  return {
    ...capabilities,
    maxStopSequences: api === "chat" && !reasoning ? CHAT_MAX_STOP_SEQUENCES : 0,
    strictTools: capabilities.toolCalls,
  };
}

/**
 * The family row for a model id (`gpt-5-mini-2025-08-07` → `gpt-5`).
 *
 * @example
 * ```ts
 * openAIModelFamily("gpt-4.1-mini").capabilities.contextWindow; // 1047576
 * ```
 */
export function openAIModelFamily(modelId: string): OpenAIModelFamily {
  const row = OPENAI_MODEL_FAMILIES.find((candidate) => modelId.startsWith(candidate.prefix));
  return row === undefined ? DEFAULT_FAMILY : { family: row.family, reasoning: row.reasoning, capabilities: row.capabilities };
}
