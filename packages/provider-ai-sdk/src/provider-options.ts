import { YokeError, type JsonValue, type ModelRequest, type ProviderCapabilities, type ProviderMetadata } from "@yoke/protocol";

/** The key of `request.providerOptions` the bridge reads for itself; every other key goes to the model. */
export const AI_SDK_OPTIONS_KEY = "ai-sdk";

/**
 * What `request.providerOptions["ai-sdk"]` may hold. Other keys of `providerOptions`
 * (`openai`, `google`, `mistral`, …) are handed to the wrapped model unchanged as the
 * specification's `providerOptions`, so each AI SDK provider reads its own.
 *
 * @example
 * ```ts
 * const request: ModelRequest = {
 *   messages, tools: [],
 *   providerOptions: { "ai-sdk": { structuredOutput: { name: "answer", schema } }, google: { thinkingConfig: { thinkingBudget: 0 } } },
 * };
 * ```
 */
export interface AiSdkRequestOptions {
  /** Constrain the text output to a JSON schema (the specification's `responseFormat: { type: "json" }`). */
  structuredOutput?: { name?: string; description?: string; schema: { [key: string]: JsonValue } };
  topP?: number;
  topK?: number;
  seed?: number;
  stopSequences?: string[];
}

function invalid(message: string): YokeError {
  return new YokeError("PROVIDER_ADMISSION_REJECTED", message, { details: { provider: "ai-sdk" } });
}

const isObject = (value: unknown): value is { [key: string]: JsonValue } => typeof value === "object" && value !== null && !Array.isArray(value);

/** Reads and checks `providerOptions["ai-sdk"]`; a malformed option fails admission. */
export function readAiSdkOptions(request: ModelRequest): AiSdkRequestOptions {
  const raw = request.providerOptions?.[AI_SDK_OPTIONS_KEY] ?? {};
  const options: AiSdkRequestOptions = {};
  for (const key of ["topP", "topK", "seed"] as const) {
    const value = raw[key];
    if (value === undefined) continue;
    if (typeof value !== "number" || !Number.isFinite(value)) throw invalid(`providerOptions["ai-sdk"].${key} must be a number`);
    options[key] = value;
  }
  if (raw.stopSequences !== undefined) {
    const stops = raw.stopSequences;
    if (!Array.isArray(stops) || !stops.every((stop) => typeof stop === "string"))
      throw invalid('providerOptions["ai-sdk"].stopSequences must be an array of strings');
    options.stopSequences = stops as string[];
  }
  const structured = raw.structuredOutput;
  if (structured !== undefined) {
    if (!isObject(structured)) throw invalid('providerOptions["ai-sdk"].structuredOutput must be an object');
    const { name, description, schema } = structured;
    if (!isObject(schema)) throw invalid('providerOptions["ai-sdk"].structuredOutput.schema must be a JSON schema object');
    if (name !== undefined && typeof name !== "string") throw invalid('providerOptions["ai-sdk"].structuredOutput.name must be a string');
    if (description !== undefined && typeof description !== "string") throw invalid('providerOptions["ai-sdk"].structuredOutput.description must be a string');
    options.structuredOutput = { schema, ...(name === undefined ? {} : { name }), ...(description === undefined ? {} : { description }) };
  }
  return options;
}

/** `request.providerOptions` without the bridge's own key: what the wrapped model receives. */
export function passThroughOptions(request: ModelRequest): ProviderMetadata | undefined {
  if (request.providerOptions === undefined) return undefined;
  const { [AI_SDK_OPTIONS_KEY]: _own, ...rest } = request.providerOptions;
  return Object.keys(rest).length > 0 ? rest : undefined;
}

/**
 * The options a call is made with: a request's `responseFormat` becomes the structured output
 * when no `providerOptions["ai-sdk"].structuredOutput` is given and the model declares
 * structured output (else admission warns that it was not sent; the runtime still validates
 * the answer).
 */
export function withResponseFormat(request: ModelRequest, options: AiSdkRequestOptions, capabilities: ProviderCapabilities): AiSdkRequestOptions {
  const format = request.responseFormat;
  if (options.structuredOutput !== undefined || format === undefined || capabilities.structuredOutput === "none") return options;
  const { schema, name, description } = format;
  return { ...options, structuredOutput: { schema, ...(name === undefined ? {} : { name }), ...(description === undefined ? {} : { description }) } };
}
