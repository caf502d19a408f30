// The demo run with its spans exported live: an OTel SDK tracer provider with an OTLP/HTTP
// exporter, and @yoke/otel's observer fed by the harness's onEvent.
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { createSpanObserver } from "@yoke/otel";
import { runDemo } from "./run-demo.ts";

export interface ExportDemoResult {
  readonly outcome: string;
  readonly spans: number;
  readonly traceIds: readonly string[];
}

/** Runs the demo and sends its spans to the OTLP/HTTP traces endpoint `url` (e.g. http://127.0.0.1:4318/v1/traces). */
export async function exportDemo(url: string, serviceName = "yoke-otel-demo"): Promise<ExportDemoResult> {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ "service.name": serviceName }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }))],
  });
  const observer = createSpanObserver(provider.getTracer("@yoke/example-otel-export"), { agentName: "demo-agent" });
  try {
    const { outcome } = await runDemo(observer.onEvent);
    observer.finish();
    await provider.forceFlush();
    return { outcome, spans: observer.spans, traceIds: observer.traceIds };
  } finally {
    await provider.shutdown();
  }
}
