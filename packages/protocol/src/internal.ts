/**
 * @yoke/protocol/internal — helpers the @yoke packages share that are not part of the
 * protocol's public surface: the action state machine the scheduler drives, the mapping of
 * provider SDK errors to YokeErrors the provider adapters use, part-level zod schemas, and
 * hash and id patterns. NO SEMVER GUARANTEE: any of these may change or go in a minor or
 * patch release. Import from `@yoke/protocol` instead wherever you can.
 */
export {
  ACTION_EVENT_TYPES,
  ACTION_STATES,
  RECONCILE_VERDICTS,
  isFinalActionState,
  transitionAction,
} from "./actions.js";
export type { ActionEventType, ActionTransitionInput, ActionTransitionResult } from "./actions.js";
export { CANONICAL_JSON_MAX_DEPTH } from "./canonical-json.js";
export { EVENT_TYPE_PATTERN, ChainHashSchema, HashSchema, JOURNAL_KEY_ID_PATTERN, OutcomeSchema } from "./events.js";
export { ID_KINDS, idSchema } from "./ids.js";
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
  WithheldToolCallPartSchema,
  TruncationSchema,
  UsageSchema,
  withUsageTotals,
} from "./model.js";
export { addUsage } from "./provider.js";
export { cancellable, providerError, retryAfterMs, withRequestId } from "./provider-errors.js";
export type { ProviderErrorContext, SdkErrorLike } from "./provider-errors.js";
export { PROVIDER_ERROR_CLASSES, classifyProviderError } from "./provider-error-classes.js";
export type { ProviderErrorClass, ProviderErrorKind } from "./provider-error-classes.js";
