// `yoke export <run> --otlp <url>`: a past run's spans (GenAI semantic conventions, from
// @yoke/otel) sent to an OpenTelemetry collector over OTLP/HTTP. The spans are timed by the
// journaled events, so exporting a run twice sends the same spans (with new ids).
import type { Tracer } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { createSpanObserver, OTEL_INSTRUMENTATION_NAME } from "@yoke/otel";
import { type JournalEvent, YokeError, type YokeEvent } from "@yoke/protocol";

/** Where and how {@link exportRunOtlp} sends the spans. */
export interface ExportRunOtlpOptions {
  /** The collector's OTLP/HTTP traces endpoint, in full: `http://127.0.0.1:4318/v1/traces`. */
  url: string;
  /** Extra request headers (an API key header of a hosted backend, say). */
  headers?: Record<string, string>;
  /** `service.name` of the resource the spans are sent under. Default `"yoke"`. */
  serviceName?: string;
  /** `gen_ai.agent.name` of the run span (`invoke_agent <agentName>`). Default `"yoke"`. */
  agentName?: string;
  /** How long the export may take, in ms. Default 10 000. */
  timeoutMillis?: number;
}

export interface ExportRunOtlpResult {
  /** Spans sent. */
  readonly spans: number;
  /** The trace id of each run exported. */
  readonly traceIds: readonly string[];
}

/** `ExportResultCode.SUCCESS` of @opentelemetry/core. */
const EXPORT_SUCCESS = 0;

/**
 * Sends the spans of a run (its journal events, in order) to an OTLP/HTTP collector, as OTLP
 * JSON, in one request. CONFIG_INVALID for a URL that is not http(s); EXPORT_FAILED
 * (retryable) when the collector refuses the spans or cannot be reached; EVENT_INVALID for an
 * event that is not one of Yoke's.
 *
 * @example
 * ```ts
 * const events = [];
 * for await (const event of journal.read({ tenantId: "tenant_a", runId })) events.push(event);
 * const { spans, traceIds } = await exportRunOtlp(events, { url: "http://127.0.0.1:4318/v1/traces" });
 * console.log(`exported ${spans} spans (trace ${traceIds[0]})`);
 * ```
 */
export async function exportRunOtlp(
  events: Iterable<JournalEvent | YokeEvent> | AsyncIterable<JournalEvent | YokeEvent>,
  options: ExportRunOtlpOptions,
): Promise<ExportRunOtlpResult> {
  const url = parseUrl(options.url);
  const collected = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": options.serviceName ?? "yoke" }),
    spanProcessors: [new SimpleSpanProcessor(collected)],
  });
  const exporter = new OTLPTraceExporter({ url, headers: options.headers ?? {}, timeoutMillis: options.timeoutMillis ?? 10_000 });
  try {
    const tracer: Tracer = provider.getTracer(OTEL_INSTRUMENTATION_NAME);
    const observer = createSpanObserver(tracer, { agentName: options.agentName ?? "yoke" });
    for await (const event of events) observer.onEvent(event);
    observer.finish();
    await provider.forceFlush();
    const spans: ReadableSpan[] = collected.getFinishedSpans();
    if (spans.length > 0) {
      const result = await new Promise<{ code: number; error?: Error }>((resolve) => exporter.export(spans, resolve));
      if (result.code !== EXPORT_SUCCESS) {
        const reason = result.error?.message ?? "the collector did not accept the spans";
        throw new YokeError("EXPORT_FAILED", `could not export ${spans.length} spans to ${url}: ${reason}`, {
          details: { url, spans: spans.length },
          ...(result.error ? { cause: result.error } : {}),
        });
      }
    }
    return { spans: spans.length, traceIds: [...observer.traceIds] };
  } finally {
    await exporter.shutdown();
    await provider.shutdown();
  }
}

function parseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch (cause) {
    throw new YokeError("CONFIG_INVALID", `--otlp needs an http(s) URL, got ${JSON.stringify(text)}`, { details: { url: text }, cause });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new YokeError("CONFIG_INVALID", `--otlp needs an http(s) URL, got ${JSON.stringify(text)}`, { details: { url: text } });
  }
  return url.href;
}
