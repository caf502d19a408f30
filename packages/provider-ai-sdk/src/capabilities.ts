import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { ProviderCapabilities } from "@yoke/protocol";

/**
 * What the bridge assumes of a model that declares nothing more: text in and out, function
 * tools (every language model of the specification takes them), one call at a time, no
 * output schema, no cache or reasoning figures, and a small context. Stop sequences: the
 * specification has no limit field and providers differ (OpenAI takes 4, Gemini 5,
 * Anthropic many), so the default is 4, the smallest common limit. No strict tool mode and no
 * provider (server) tools unless declared. Override any of it with `capabilities` in the
 * factory.
 */
export const DEFAULT_AI_SDK_CAPABILITIES: ProviderCapabilities = Object.freeze<ProviderCapabilities>({
  inputModalities: ["text"],
  outputModalities: ["text"],
  toolCalls: true,
  parallelToolCalls: false,
  structuredOutput: "none",
  streaming: true,
  cancellation: true,
  usage: Object.freeze({ cacheReadTokens: false, cacheWriteTokens: false, reasoningTokens: false }),
  contextWindow: 32_768,
  maxOutputTokens: 4_096,
  promptCaching: "none",
  maxStopSequences: 4,
  strictTools: false,
});

type Modality = ProviderCapabilities["inputModalities"][number];

// `supportedUrls` keys are media types or patterns (`image/*`, `application/pdf`, `*/*`).
function modalitiesOf(supportedUrls: Readonly<Record<string, readonly RegExp[]>>): Modality[] {
  const found = new Set<Modality>(["text"]);
  for (const mediaType of Object.keys(supportedUrls)) {
    const top = mediaType.toLowerCase().split("/")[0];
    if (top === "*") for (const modality of ["image", "audio", "file"] as const) found.add(modality);
    else if (top === "image") found.add("image");
    else if (top === "audio") found.add("audio");
    else found.add("file");
  }
  return [...found];
}

const isPromiseLike = (value: unknown): value is PromiseLike<unknown> =>
  typeof value === "object" && value !== null && typeof (value as { then?: unknown }).then === "function";

/** A model's `supportedUrls` when it declares them as a plain object (a promise is not awaited); else undefined. */
export function declaredSupportedUrls(model: Pick<LanguageModelV4, "supportedUrls">): Readonly<Record<string, readonly RegExp[]>> | undefined {
  let supportedUrls: unknown;
  try {
    supportedUrls = model.supportedUrls;
  } catch {
    return undefined;
  }
  if (typeof supportedUrls !== "object" || supportedUrls === null || isPromiseLike(supportedUrls)) return undefined;
  return supportedUrls as Record<string, RegExp[]>;
}

/**
 * The capability matrix of a wrapped model, read from what it declares: the media types of
 * its `supportedUrls` (when given as a plain object; a promise is not awaited, so its
 * modalities stay at text) become input modalities, and `supportsStructuredOutputs: true`
 * (declared by the OpenAI-compatible and OpenAI chat models) means JSON-schema output and
 * strict function tools (the specification's function tool `strict`, which only providers
 * with a strict mode honour; others ignore it, so a strict tool is refused unless the model
 * declares constrained decoding or `overrides.strictTools` says so). Provider tools
 * (`serverTools`: ids such as `openai.web_search`) are never declared by a model: list the
 * ones it takes in `overrides.serverTools`. Everything else is the conservative default, and
 * `overrides` win over both.
 *
 * @example
 * ```ts
 * const capabilities = aiSdkCapabilities(model, { contextWindow: 128_000, parallelToolCalls: true });
 * ```
 */
export function aiSdkCapabilities(model: Pick<LanguageModelV4, "supportedUrls">, overrides: Partial<ProviderCapabilities> = {}): ProviderCapabilities {
  const declared: Partial<{ -readonly [K in keyof ProviderCapabilities]: ProviderCapabilities[K] }> = {};
  const supportedUrls = declaredSupportedUrls(model);
  if (supportedUrls !== undefined) declared.inputModalities = modalitiesOf(supportedUrls);
  if ((model as { supportsStructuredOutputs?: unknown }).supportsStructuredOutputs === true) {
    declared.structuredOutput = "json-schema";
    declared.strictTools = true;
  }
  return { ...DEFAULT_AI_SDK_CAPABILITIES, ...declared, ...overrides };
}
