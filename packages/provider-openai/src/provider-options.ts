import { YokeError, type JsonValue, type ModelRequest } from "@yoke/protocol";
import { strictSchemaViolations } from "./strict-schema.js";

/**
 * What `request.providerOptions.openai` may hold. Everything here is OpenAI-only; the
 * normalized request carries what every provider shares.
 *
 * @example
 * ```ts
 * const request: ModelRequest = {
 *   messages, tools: [],
 *   providerOptions: { openai: { reasoningEffort: "low", structuredOutput: { name: "answer", schema } } },
 * };
 * ```
 */
export interface OpenAIRequestOptions {
  /** Let OpenAI store the response (Responses API). Default false: Yoke's journal is the record. */
  store?: boolean;
  reasoningEffort?: "minimal" | "low" | "medium" | "high";
  /** Ask for reasoning summaries (Responses API), which become reasoning parts. */
  reasoningSummary?: "auto" | "concise" | "detailed";
  /** Set false to ask for at most one tool call per response. */
  parallelToolCalls?: boolean;
  /**
   * Constrain the text output to a JSON schema in the strict subset (see `strictSchemaViolations`).
   * Without it, the request's `responseFormat` is sent the same way (without its root `$schema`):
   * strict when its schema is in the subset (e.g. `z.strictObject` with every property required), else as a non-strict
   * `json_schema` the model is asked, not forced, to follow (`strict: false`).
   */
  structuredOutput?: { name: string; schema: { [key: string]: JsonValue }; description?: string; strict?: boolean };
  /** Routes requests with a shared prefix to the same cache. */
  promptCacheKey?: string;
  serviceTier?: "auto" | "default" | "flex" | "priority";
}

const oneOf = <T extends string>(value: JsonValue | undefined, allowed: readonly T[], name: string): T | undefined => {
  if (value === undefined) return undefined;
  if (typeof value === "string" && (allowed as readonly string[]).includes(value)) return value as T;
  throw invalid(`providerOptions.openai.${name} must be one of ${allowed.join(", ")}`);
};

function invalid(message: string): YokeError {
  return new YokeError("PROVIDER_ADMISSION_REJECTED", message, { details: { provider: "openai" } });
}

/** Reads and checks `providerOptions.openai`; a malformed option fails admission. */
export function readOpenAIOptions(request: ModelRequest): OpenAIRequestOptions {
  const raw = request.providerOptions?.openai ?? {};
  const options: OpenAIRequestOptions = {};
  for (const key of ["store", "parallelToolCalls"] as const) {
    const value = raw[key];
    if (value === undefined) continue;
    if (typeof value !== "boolean") throw invalid(`providerOptions.openai.${key} must be a boolean`);
    options[key] = value;
  }
  // The request's own effort, unless the OpenAI-only option names one.
  const effort = oneOf(raw.reasoningEffort, ["minimal", "low", "medium", "high"], "reasoningEffort") ?? request.reasoningEffort;
  if (effort !== undefined) options.reasoningEffort = effort;
  const summary = oneOf(raw.reasoningSummary, ["auto", "concise", "detailed"], "reasoningSummary");
  if (summary !== undefined) options.reasoningSummary = summary;
  const tier = oneOf(raw.serviceTier, ["auto", "default", "flex", "priority"], "serviceTier");
  if (tier !== undefined) options.serviceTier = tier;
  if (raw.promptCacheKey !== undefined) {
    if (typeof raw.promptCacheKey !== "string") throw invalid("providerOptions.openai.promptCacheKey must be a string");
    options.promptCacheKey = raw.promptCacheKey;
  }
  const structured = raw.structuredOutput;
  if (structured !== undefined) {
    if (typeof structured !== "object" || structured === null || Array.isArray(structured))
      throw invalid("providerOptions.openai.structuredOutput must be an object");
    const { name, schema, description } = structured;
    if (typeof name !== "string" || !/^[a-zA-Z0-9_-]{1,64}$/.test(name))
      throw invalid("providerOptions.openai.structuredOutput.name must match ^[a-zA-Z0-9_-]{1,64}$");
    if (typeof schema !== "object" || schema === null || Array.isArray(schema))
      throw invalid("providerOptions.openai.structuredOutput.schema must be a JSON schema object");
    options.structuredOutput = { name, schema, ...(typeof description === "string" ? { description } : {}) };
  } else if (request.responseFormat !== undefined) {
    // The root's `$schema` names the dialect (zod and others add it); it constrains nothing and is
    // outside the strict subset's keywords, so it is not sent.
    const {
      name,
      schema: { $schema: _dialect, ...schema },
      description,
    } = request.responseFormat;
    const strict = strictSchemaViolations(schema).length === 0;
    options.structuredOutput = { name: name ?? "output", schema, ...(description === undefined ? {} : { description }), strict };
  }
  return options;
}
