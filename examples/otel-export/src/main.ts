// Runs the demo and exports its spans to an OpenTelemetry collector over OTLP/HTTP:
//
//   node src/main.ts [--otlp http://127.0.0.1:4318/v1/traces]
//
// Start any collector first (an OpenTelemetry Collector, Jaeger with OTLP enabled, …).
import { parseArgs } from "node:util";
import { exportDemo } from "./export-demo.ts";

const { values } = parseArgs({ options: { otlp: { type: "string", default: "http://127.0.0.1:4318/v1/traces" } } });
const result = await exportDemo(values.otlp!);
console.log(`run ended ${result.outcome}; exported ${result.spans} spans to ${values.otlp} (trace ${result.traceIds.join(", ")})`);
