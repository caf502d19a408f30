import type { YokeErrorCode } from "./errors.js";

/**
 * What kind of failure a provider reported, whatever way it arrived (an HTTP status, an
 * `error` event inside a 200 stream, OpenAI's `response.failed`). Kept in
 * `YokeError.details.kind` so a caller can tell a spent quota from a bad key.
 */
export type ProviderErrorKind =
  | "rate_limit"
  | "overloaded"
  | "server"
  | "timeout"
  | "quota"
  | "billing"
  | "authentication"
  | "permission"
  | "not_found"
  | "request_too_large"
  | "context_length"
  | "invalid_request"
  | "content_policy"
  | "unknown";

/** How one kind of provider error maps to a YokeError. */
export interface ProviderErrorClass {
  readonly kind: ProviderErrorKind;
  readonly code: Extract<YokeErrorCode, "PROVIDER_RATE_LIMITED" | "PROVIDER_UNAVAILABLE" | "PROVIDER_REQUEST_INVALID">;
  readonly retryable: boolean;
}

const RATE_LIMIT: ProviderErrorClass = { kind: "rate_limit", code: "PROVIDER_RATE_LIMITED", retryable: true };
const OVERLOADED: ProviderErrorClass = { kind: "overloaded", code: "PROVIDER_UNAVAILABLE", retryable: true };
const SERVER: ProviderErrorClass = { kind: "server", code: "PROVIDER_UNAVAILABLE", retryable: true };
const TIMEOUT: ProviderErrorClass = { kind: "timeout", code: "PROVIDER_UNAVAILABLE", retryable: true };
// A spent quota answers 429 but is not a rate: waiting does not help.
const QUOTA: ProviderErrorClass = { kind: "quota", code: "PROVIDER_RATE_LIMITED", retryable: false };
const rejected = (kind: ProviderErrorKind): ProviderErrorClass => ({ kind, code: "PROVIDER_REQUEST_INVALID", retryable: false });

/**
 * The one table of provider error types (OpenAI's `code` and `type`, Anthropic's
 * `error.type`), read for an HTTP error and an in-stream error alike. Quota, billing,
 * authentication, permission, invalid-request and context-length errors are never
 * retryable; rate limits, overload and server errors are.
 */
export const PROVIDER_ERROR_CLASSES: Readonly<Record<string, ProviderErrorClass>> = {
  // rate limits: OpenAI `code` and the `type` naming the limit hit; Anthropic
  rate_limit_exceeded: RATE_LIMIT,
  requests: RATE_LIMIT,
  tokens: RATE_LIMIT,
  rate_limit_error: RATE_LIMIT,
  // overload and server failures
  overloaded_error: OVERLOADED,
  server_is_overloaded: OVERLOADED,
  slow_down: OVERLOADED,
  server_error: SERVER,
  api_error: SERVER,
  vector_store_timeout: TIMEOUT,
  timeout_error: TIMEOUT,
  // never retryable, wherever they arrive
  insufficient_quota: QUOTA,
  billing_error: rejected("billing"),
  billing_hard_limit_reached: rejected("billing"),
  billing_not_active: rejected("billing"),
  authentication_error: rejected("authentication"),
  invalid_api_key: rejected("authentication"),
  invalid_authentication: rejected("authentication"),
  permission_error: rejected("permission"),
  unsupported_country_region_territory: rejected("permission"),
  data_residency_mismatch: rejected("permission"),
  not_found_error: rejected("not_found"),
  model_not_found: rejected("not_found"),
  request_too_large: rejected("request_too_large"),
  context_length_exceeded: rejected("context_length"),
  string_above_max_length: rejected("context_length"),
  invalid_request_error: rejected("invalid_request"),
  invalid_prompt: rejected("invalid_request"),
  bio_policy: rejected("content_policy"),
  misalignment_policy_violation: rejected("content_policy"),
  image_content_policy_violation: rejected("content_policy"),
};

// Responses API `response.failed` codes for a bad input image: all the request's fault.
const IMAGE_CODE = /^(invalid_image|invalid_base64_image|image_|unsupported_image|empty_image|failed_to_download_image)/;

/**
 * Classifies a provider error from the types it names (most specific first: OpenAI's `code`
 * before its `type`) and its HTTP status when it has one. A known type decides; else the
 * status (429 rate limit; 408, 409, 5xx unavailable; other 4xx rejected); a status-less
 * error of a type nobody knows is not retried, since nothing says waiting would help.
 *
 * @example
 * ```ts
 * classifyProviderError(["insufficient_quota"], undefined);
 * // { kind: "quota", code: "PROVIDER_RATE_LIMITED", retryable: false }
 * ```
 */
export function classifyProviderError(types: readonly string[], status: number | undefined): ProviderErrorClass {
  for (const type of types) {
    const known = Object.hasOwn(PROVIDER_ERROR_CLASSES, type) ? PROVIDER_ERROR_CLASSES[type] : undefined;
    if (known !== undefined) return known;
    if (IMAGE_CODE.test(type)) return rejected("invalid_request");
  }
  if (status === undefined) return { kind: "unknown", code: "PROVIDER_UNAVAILABLE", retryable: false };
  if (status === 429) return RATE_LIMIT;
  if (status === 408) return TIMEOUT;
  if (status === 409 || status >= 500) return SERVER;
  if (status === 401) return rejected("authentication");
  if (status === 402) return rejected("billing");
  if (status === 403) return rejected("permission");
  if (status === 404) return rejected("not_found");
  if (status === 413) return rejected("request_too_large");
  return rejected("invalid_request");
}
