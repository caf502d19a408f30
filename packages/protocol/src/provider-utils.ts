/**
 * @yoke/protocol/provider-utils — what a `ProviderAdapterV1` implementation shares with the
 * adapters Yoke ships, so a third-party adapter maps errors, cancellation and usage exactly
 * as they do: the SDK-error mapping to `YokeError`s (one table for HTTP and in-stream
 * errors), the cancellation wrapper, the request-id stamp, the usage arithmetic, the check of
 * user images and files against a model's input modalities (`userMediaIssue`), and the
 * zod schemas of the normalized request and response piece by piece (a message, a part,
 * usage, a stop reason) for validating what an adapter builds before it returns it.
 *
 * Semver-covered like the root entry: a breaking change here is a major release of
 * `@yoke/protocol`. The model is the AI SDK's `@ai-sdk/provider-utils`.
 *
 * @example
 * ```ts
 * import { cancellable, providerError, withUsageTotals } from "@yoke/protocol/provider-utils";
 *
 * const generate = (request: ModelRequest, options: GenerateOptions = {}): Promise<ModelResponse> =>
 *   cancellable("acme", options.signal, async () => {
 *     let raw: AcmeReply;
 *     try {
 *       raw = await client.complete(toWire(request), { signal: options.signal });
 *     } catch (thrown) {
 *       throw providerError(thrown, { provider: "acme", signal: options.signal, streamStarted: false, now: Date.now });
 *     }
 *     return { ...fromWire(raw), usage: withUsageTotals(usageOf(raw)) };
 *   });
 * ```
 */
export { addUsage } from "./provider.js";
export { cancellable, providerError, retryAfterMs, withRequestId } from "./provider-errors.js";
export type { ProviderErrorContext, SdkErrorLike } from "./provider-errors.js";
export { PROVIDER_ERROR_CLASSES, classifyProviderError } from "./provider-error-classes.js";
export type { ProviderErrorClass, ProviderErrorKind } from "./provider-error-classes.js";
export {
  AssistantPartSchema,
  MessageSchema,
  ProviderMetadataSchema,
  ReasoningPartSchema,
  RefusalPartSchema,
  ResponseFormatSchema,
  ServerToolCallPartSchema,
  ServerToolResultPartSchema,
  ServerToolSpecSchema,
  StopReasonSchema,
  TextPartSchema,
  ToolCallPartSchema,
  ToolResultEnvelopeSchema,
  ToolResultPartSchema,
  TruncatedToolCallPartSchema,
  TruncationSchema,
  UsageSchema,
  UserPartSchema,
  WithheldToolCallPartSchema,
  withUsageTotals,
} from "./model.js";
export { FilePartSchema, ImagePartSchema, MediaSourceSchema } from "./user-parts.js";
export { userMediaIssue } from "./media-admission.js";
export type { MediaIssue } from "./media-admission.js";
