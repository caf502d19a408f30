import { YokeError, type ModelRequest } from "@yoke/protocol";

/**
 * What `request.providerOptions.anthropic` may hold.
 *
 * @example
 * ```ts
 * const request: ModelRequest = { messages, tools, providerOptions: { anthropic: { thinkingBudgetTokens: 2048 } } };
 * ```
 */
export interface AnthropicRequestOptions {
  /** Turns extended thinking on with this budget (at least 1,024, below the output limit). */
  thinkingBudgetTokens?: number;
  /** Set false to ask for at most one tool call per response. */
  parallelToolCalls?: boolean;
  /** Place a cache breakpoint at the request's stable-prefix boundary. Default true. */
  promptCaching?: boolean;
  /** Breakpoint lifetime. Default `5m`. */
  cacheTtl?: "5m" | "1h";
}

const KNOWN = new Set(["thinkingBudgetTokens", "parallelToolCalls", "promptCaching", "cacheTtl", "structuredOutput"]);

function invalid(message: string): YokeError {
  return new YokeError("PROVIDER_ADMISSION_REJECTED", message, { details: { provider: "anthropic" } });
}

/** Reads and checks `providerOptions.anthropic`; a malformed or unknown option fails admission (a typo never passes silently). */
export function readAnthropicOptions(request: ModelRequest): AnthropicRequestOptions & { structuredOutput?: unknown } {
  const raw = request.providerOptions?.anthropic ?? {};
  for (const key of Object.keys(raw)) if (!KNOWN.has(key)) throw invalid(`providerOptions.anthropic.${key} is not an option this adapter knows`);
  const options: AnthropicRequestOptions & { structuredOutput?: unknown } = {};
  if (raw.thinkingBudgetTokens !== undefined) {
    if (typeof raw.thinkingBudgetTokens !== "number" || !Number.isInteger(raw.thinkingBudgetTokens) || raw.thinkingBudgetTokens < 1024) {
      throw invalid("providerOptions.anthropic.thinkingBudgetTokens must be an integer of at least 1024");
    }
    options.thinkingBudgetTokens = raw.thinkingBudgetTokens;
  }
  for (const key of ["parallelToolCalls", "promptCaching"] as const) {
    if (raw[key] === undefined) continue;
    if (typeof raw[key] !== "boolean") throw invalid(`providerOptions.anthropic.${key} must be a boolean`);
    options[key] = raw[key];
  }
  if (raw.cacheTtl !== undefined) {
    if (raw.cacheTtl !== "5m" && raw.cacheTtl !== "1h") throw invalid('providerOptions.anthropic.cacheTtl must be "5m" or "1h"');
    options.cacheTtl = raw.cacheTtl;
  }
  if (raw.structuredOutput !== undefined) options.structuredOutput = raw.structuredOutput;
  return options;
}
