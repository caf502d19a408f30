import { z } from "zod/v4";

import { ArtifactRefSchema } from "./artifacts.js";
import { JsonObjectSchema, JsonValueSchema, type JsonValue } from "./json-value.js";
import { FilePartSchema, ImagePartSchema } from "./user-parts.js";

export { JsonValueSchema, type JsonValue };

/** Vendor-specific data, keyed by provider id. The escape hatch instead of new spec fields. */
export const ProviderMetadataSchema = z.record(z.string(), JsonObjectSchema);
export type ProviderMetadata = z.infer<typeof ProviderMetadataSchema>;

/** Plain text: what a user said, or a text part of what the model answered. */
export const TextPartSchema = z.object({ type: z.literal("text"), text: z.string() });
export type TextPart = z.infer<typeof TextPartSchema>;

/**
 * A tool call as the model proposed it. `rawArguments` is exactly what the model sent;
 * `arguments` is its parse, absent when the raw text was not valid JSON (then
 * `argumentsError` says why). The runtime validates `arguments` against the tool's schema.
 * `omitted`: the runtime did not keep the arguments (they were larger than the run's
 * `maxToolInputBytes`, here `limit`); `rawArguments` is then `"{}"`, and `bytes` and `sha256`
 * (of the UTF-8 text the model sent) identify what was left out. Such a call is never run.
 */
export const ToolCallPartSchema = z.object({
  type: z.literal("tool-call"),
  toolCallId: z.string().min(1),
  toolName: z.string(),
  rawArguments: z.string(),
  arguments: JsonValueSchema.optional(),
  argumentsError: z.string().optional(),
  omitted: z.object({ bytes: z.number().int().nonnegative(), sha256: z.string().regex(/^[0-9a-f]{64}$/), limit: z.number().int().positive() }).optional(),
  providerMetadata: ProviderMetadataSchema.optional(),
});
export type ToolCallPart = z.infer<typeof ToolCallPartSchema>;

/**
 * Model reasoning, kept so it can be sent back where an API requires it. When the provider
 * returns its summary in several parts (OpenAI reasoning items), `summary` keeps them apart,
 * in order, and is what an adapter sends back; `text` is then their join with blank lines,
 * for display.
 */
export const ReasoningPartSchema = z.object({
  type: z.literal("reasoning"),
  text: z.string(),
  summary: z.array(z.string()).optional(),
  providerMetadata: ProviderMetadataSchema.optional(),
});
export type ReasoningPart = z.infer<typeof ReasoningPartSchema>;

/**
 * The model declining to answer, in its own words (OpenAI's `refusal` content and
 * `response.refusal.delta`). Never text: it is not shown as an answer and never parsed as
 * structured output.
 */
export const RefusalPartSchema = z.object({
  type: z.literal("refusal"),
  text: z.string(),
  providerMetadata: ProviderMetadataSchema.optional(),
});
export type RefusalPart = z.infer<typeof RefusalPartSchema>;

/**
 * A tool call the output limit cut off (`max_tokens` inside its arguments). Never
 * executable and never sent back as a call: the runtime's `max_tokens` continuation asks
 * again. `rawArguments` is what the model had written when it was cut.
 */
export const TruncatedToolCallPartSchema = z.object({
  type: z.literal("tool-call-truncated"),
  toolCallId: z.string().min(1),
  toolName: z.string(),
  rawArguments: z.string(),
  providerMetadata: ProviderMetadataSchema.optional(),
});
export type TruncatedToolCallPart = z.infer<typeof TruncatedToolCallPartSchema>;

/**
 * A tool call in a response the model refused or a content filter stopped (stop reason
 * `refusal` or `content_filter`, or a `refusal` part; see `isRefusedResponse`). Nothing in
 * such a response is executable: the call is kept for the record, never run and never sent
 * back as a call, and the run waits for a person as it does for any refusal. `rawArguments`
 * is what the model had written, whole or not, when it stopped.
 */
export const WithheldToolCallPartSchema = z.object({
  type: z.literal("tool-call-withheld"),
  toolCallId: z.string().min(1),
  toolName: z.string(),
  rawArguments: z.string(),
  providerMetadata: ProviderMetadataSchema.optional(),
});
export type WithheldToolCallPart = z.infer<typeof WithheldToolCallPartSchema>;

/**
 * A call to a tool the provider runs itself (an Anthropic server tool such as web search).
 * Yoke does not execute it. `raw` is the provider's block verbatim, sent back unchanged when
 * the turn continues (e.g. after `pause`).
 */
export const ServerToolCallPartSchema = z.object({
  type: z.literal("server-tool-call"),
  provider: z.string(),
  toolCallId: z.string().min(1),
  toolName: z.string(),
  arguments: JsonValueSchema,
  raw: JsonObjectSchema,
});
export type ServerToolCallPart = z.infer<typeof ServerToolCallPartSchema>;

/**
 * The result of a server tool call as the provider returned it (`web_search_tool_result`,
 * `code_execution_tool_result`, …). `raw` is the block verbatim, sent back unchanged.
 */
export const ServerToolResultPartSchema = z.object({
  type: z.literal("server-tool-result"),
  provider: z.string(),
  toolCallId: z.string().min(1),
  /** The provider's block type, e.g. `web_search_tool_result`. */
  resultType: z.string(),
  raw: JsonObjectSchema,
});
export type ServerToolResultPart = z.infer<typeof ServerToolResultPartSchema>;

/** One part of what the model answered: text, reasoning, a refusal, a tool call (whole, truncated or withheld), a server tool's call or result. */
export const AssistantPartSchema = z.discriminatedUnion("type", [
  TextPartSchema,
  ToolCallPartSchema,
  ReasoningPartSchema,
  RefusalPartSchema,
  TruncatedToolCallPartSchema,
  WithheldToolCallPartSchema,
  ServerToolCallPartSchema,
  ServerToolResultPartSchema,
]);
export type AssistantPart = z.infer<typeof AssistantPartSchema>;

/**
 * How a result's text was cut. `originalBytes` and `keptBytes` count UTF-8 bytes of the text
 * the model is shown (its text parts, else its structured output as canonical JSON).
 */
export const TruncationSchema = z.object({
  originalBytes: z.number().int().nonnegative(),
  keptBytes: z.number().int().nonnegative(),
  /** Hash of the full content when it was kept as an artifact (set by the context compiler on what the model sees). */
  artifactHash: z.string().optional(),
  /**
   * The whole result, stored out of line in an `ArtifactStoreV2` because it was larger than
   * one event may hold: the text as `text/plain; charset=utf-8` when the result had no
   * structured output, else `{ content, output }` as canonical JSON
   * (`application/vnd.yoke.tool-result+json`). The envelope then keeps the first `keptBytes`
   * of the text and no `output`. Absent in journals written before artifact stores.
   */
  artifact: ArtifactRefSchema.optional(),
});
export type Truncation = z.infer<typeof TruncationSchema>;

/**
 * What a tool call produced, as the model and the journal see it.
 *
 * @example
 * ```ts
 * const envelope: ToolResultEnvelope = {
 *   status: "ok", content: [{ type: "text", text: "3 files" }],
 *   timing: { startedAt: 0, endedAt: 4, durationMs: 4 },
 * };
 * ```
 */
export const ToolResultEnvelopeSchema = z.object({
  status: z.enum(["ok", "error"]),
  content: z.array(TextPartSchema),
  /** Structured output, when the tool returns one. */
  output: JsonValueSchema.optional(),
  /** Present when content was cut to the tool's output budget. */
  truncation: TruncationSchema.optional(),
  /** Present when status is "error": a YokeError code and a message for the model. */
  error: z.object({ code: z.string(), message: z.string() }).optional(),
  timing: z.object({
    startedAt: z.number(),
    endedAt: z.number(),
    durationMs: z.number().nonnegative(),
  }),
});
export type ToolResultEnvelope = z.infer<typeof ToolResultEnvelopeSchema>;

/** The result of one tool call, as the tool message hands it back to the model. */
export const ToolResultPartSchema = z.object({
  type: z.literal("tool-result"),
  toolCallId: z.string(),
  toolName: z.string(),
  result: ToolResultEnvelopeSchema,
});
export type ToolResultPart = z.infer<typeof ToolResultPartSchema>;

/** One part of what a user gave the model: text, an image or a file (see `ImagePart`, `FilePart`). */
export const UserPartSchema = z.discriminatedUnion("type", [TextPartSchema, ImagePartSchema, FilePartSchema]);
export type UserPart = z.infer<typeof UserPartSchema>;

/** One message of a request's transcript: system text, user text and media, the model's parts, or tool results. */
export const MessageSchema = z.discriminatedUnion("role", [
  z.object({ role: z.literal("system"), content: z.string() }),
  z.object({ role: z.literal("user"), content: z.array(UserPartSchema) }),
  z.object({ role: z.literal("assistant"), content: z.array(AssistantPartSchema) }),
  z.object({ role: z.literal("tool"), content: z.array(ToolResultPartSchema) }),
]);
export type Message = z.infer<typeof MessageSchema>;

/** A tool as offered to the model: its input schema is JSON Schema. */
export const ToolSpecSchema = z.object({
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/),
  description: z.string(),
  inputSchema: JsonObjectSchema,
  /**
   * Ask the provider to constrain the arguments to the schema exactly (OpenAI strict mode).
   * An adapter refuses (PROVIDER_ADMISSION_REJECTED) a schema its strict mode cannot
   * represent, and a strict tool when the model has no strict mode
   * (`capabilities.strictTools`).
   */
  strict: z.boolean().optional(),
});
export type ToolSpec = z.infer<typeof ToolSpecSchema>;

/**
 * A tool the provider runs itself, declared by the provider's own versioned type (e.g.
 * Anthropic `web_search_20250305`). Only the adapter of `provider` accepts it, and only a
 * type its `capabilities.serverTools` lists; `options` are the provider's own settings for
 * the tool (e.g. `{ max_uses: 3 }`), sent as they are.
 *
 * @example
 * ```ts
 * const search: ServerToolSpec = { provider: "anthropic", type: "web_search_20250305", name: "web_search", options: { max_uses: 3 } };
 * ```
 */
export const ServerToolSpecSchema = z.object({
  provider: z.string(),
  type: z.string().min(1),
  name: z.string().min(1),
  options: JsonObjectSchema.optional(),
});
export type ServerToolSpec = z.infer<typeof ServerToolSpecSchema>;

/**
 * Ask for the final answer as JSON matching `schema` (structured output). An adapter maps it
 * to its provider's JSON-schema response format (OpenAI `response_format` / `text.format`),
 * and says in `warnings` when it cannot. Whatever the provider does, the runtime validates the
 * answer with the run's own schema.
 *
 * @example
 * ```ts
 * const format: ResponseFormat = { type: "json", name: "weather", schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } };
 * ```
 */
export const ResponseFormatSchema = z.object({
  type: z.literal("json"),
  schema: JsonObjectSchema,
  /** `[a-zA-Z0-9_-]{1,64}`; providers that need a name get `output` without one. */
  name: z
    .string()
    .regex(/^[a-zA-Z0-9_-]{1,64}$/)
    .optional(),
  description: z.string().optional(),
});
export type ResponseFormat = z.infer<typeof ResponseFormatSchema>;

/**
 * How hard a reasoning model thinks before it answers. An adapter maps it to its provider's
 * parameter, and refuses it (PROVIDER_ADMISSION_REJECTED) where the model has none.
 */
export const ReasoningEffortSchema = z.enum(["minimal", "low", "medium", "high"]);
export type ReasoningEffort = z.infer<typeof ReasoningEffortSchema>;

/** The normalized request every provider adapter accepts. */
export const ModelRequestSchema = z.object({
  messages: z.array(MessageSchema),
  tools: z.array(ToolSpecSchema),
  toolChoice: z.enum(["auto", "none", "required"]).optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  temperature: z.number().optional(),
  /** See `ReasoningEffort`. */
  reasoningEffort: ReasoningEffortSchema.optional(),
  /** Text that ends the output where it appears (not included in it). */
  stopSequences: z.array(z.string().min(1)).optional(),
  /** Tools the provider runs itself; see `ServerToolSpec`. */
  serverTools: z.array(ServerToolSpecSchema).optional(),
  /** Structured output: the final answer is JSON matching this schema; see `ResponseFormat`. */
  responseFormat: ResponseFormatSchema.optional(),
  /** Index of the first message after the prefix that stays byte-identical across turns. */
  stablePrefixMessages: z.number().int().nonnegative().optional(),
  providerOptions: ProviderMetadataSchema.optional(),
});
export type ModelRequest = z.infer<typeof ModelRequestSchema>;

/**
 * Why the model stopped. `pause` is a provider pausing a long turn (continue it);
 * `max_tokens` means the output was cut (continue the same turn).
 */
export const STOP_REASONS = ["end_turn", "max_tokens", "tool_use", "refusal", "pause", "content_filter"] as const;
/** One of STOP_REASONS. */
export const StopReasonSchema = z.enum(STOP_REASONS);
export type StopReason = z.infer<typeof StopReasonSchema>;

/** Token counts of one response, as the provider reported them; `withUsageTotals` fills the derived figures. */
export const UsageSchema = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  /** Input tokens served from a prompt cache. */
  cacheReadTokens: z.number().int().nonnegative().optional(),
  /** Input tokens written to a prompt cache. */
  cacheWriteTokens: z.number().int().nonnegative().optional(),
  /** Output tokens spent on reasoning (included in outputTokens). */
  reasoningTokens: z.number().int().nonnegative().optional(),
  /** Input tokens neither read from nor written to a cache: `inputTokens - cacheReadTokens - cacheWriteTokens`. */
  uncachedInputTokens: z.number().int().nonnegative().optional(),
  /** `inputTokens + outputTokens`. */
  totalTokens: z.number().int().nonnegative().optional(),
  /** Server tool uses the provider counted (e.g. `{ web_search_requests: 2 }`), by the provider's own name. */
  serverToolUse: z.record(z.string(), z.number().int().nonnegative()).optional(),
});
export type Usage = z.infer<typeof UsageSchema>;

/** The normalized response every provider adapter returns. */
export const ModelResponseSchema = z.object({
  /** The provider's response id, when it has one. */
  id: z.string().optional(),
  /**
   * The provider's id for the HTTP request that produced this response (OpenAI
   * `x-request-id`, Anthropic `request-id`): what the provider asks for in an incident.
   * Responses journaled before it existed have none.
   */
  requestId: z.string().optional(),
  provider: z.string(),
  /** The model revision that actually answered. */
  model: z.string(),
  content: z.array(AssistantPartSchema),
  stopReason: StopReasonSchema,
  /** The provider's own finish reason, verbatim. */
  rawStopReason: z.string().optional(),
  usage: UsageSchema,
  providerMetadata: ProviderMetadataSchema.optional(),
  /** Settings the adapter could not honour (not errors). */
  warnings: z.array(z.string()).optional(),
});
export type ModelResponse = z.infer<typeof ModelResponseSchema>;

/**
 * Fills a usage's derived figures (`uncachedInputTokens`, `totalTokens`) from its counts, so
 * every adapter computes them one way. `inputTokens` includes cached input.
 *
 * @example
 * ```ts
 * withUsageTotals({ inputTokens: 100, outputTokens: 20, cacheReadTokens: 80 });
 * // { inputTokens: 100, outputTokens: 20, cacheReadTokens: 80, uncachedInputTokens: 20, totalTokens: 120 }
 * ```
 */
export function withUsageTotals(usage: Usage): Usage {
  const cached = (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0);
  return { ...usage, uncachedInputTokens: Math.max(0, usage.inputTokens - cached), totalTokens: usage.inputTokens + usage.outputTokens };
}

/** The tool calls of a response, in the order the model proposed them. */
export function toolCallsOf(response: Pick<ModelResponse, "content">): ToolCallPart[] {
  return response.content.filter((part): part is ToolCallPart => part.type === "tool-call");
}

/**
 * `response` with each tool call's `arguments` given back from its `rawArguments`, where a
 * call has neither (`model.responded` with `argumentsFromRaw`: the journal keeps the text
 * the model sent once, not its parse too). A call whose text does not parse is left as it is;
 * the same object when no call changes.
 */
export function withParsedArguments(response: ModelResponse): ModelResponse {
  let content: ModelResponse["content"] | undefined;
  for (const [index, part] of response.content.entries()) {
    if (part.type !== "tool-call" || part.arguments !== undefined || part.argumentsError !== undefined || part.omitted !== undefined) continue;
    const parsed = parseToolArguments(part.rawArguments);
    if (!parsed.ok) continue;
    content ??= response.content.slice();
    content[index] = { ...part, arguments: parsed.value };
  }
  return content === undefined ? response : { ...response, content };
}

/**
 * Parses a model's raw tool arguments. Never throws: malformed JSON is a value the runtime
 * returns to the model.
 */
export function parseToolArguments(raw: string): { ok: true; value: JsonValue } | { ok: false; error: string } {
  try {
    return { ok: true, value: (raw.trim() === "" ? {} : JSON.parse(raw)) as JsonValue };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}
