/**
 * @yoke/otel — OpenTelemetry spans from Yoke journal events (GenAI semantic conventions).
 * Depends on `@opentelemetry/api` only. Work in progress.
 */
export const OTEL_INSTRUMENTATION_NAME = "@yoke/otel";
