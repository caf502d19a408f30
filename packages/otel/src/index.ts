/**
 * @yoke/otel — OpenTelemetry spans from Yoke journal events, following the GenAI semantic
 * conventions: a span per run (`invoke_agent`), turn, model call (`chat <model>`) and action
 * attempt (`execute_tool <tool>`), live through a harness's `onEvent` or for a past run. Times
 * come from the journaled events, so a past run gives the same spans as the live one.
 * Depends on `@opentelemetry/api` only: bring your own SDK and exporter.
 */
export const OTEL_INSTRUMENTATION_NAME = "@yoke/otel";
export { GEN_AI, GEN_AI_OPERATION, YOKE } from "./attributes.js";
export { createSpanObserver, spansFromEvents } from "./span-observer.js";
export type { SpanObserver, YokeSpanOptions } from "./span-observer.js";
