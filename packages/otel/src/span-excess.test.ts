import { SpanStatusCode } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { describe, expect, it } from "vitest";
import { journalOf, result, started, toolCallResponse, turn } from "./__fixtures__/events.js";
import { spansFromEvents } from "./span-observer.js";

/** Issue 33, item 4: the calls past the cap are one event, and one span. */
describe("tool.excess_rejected", () => {
  it("is one ERROR tool span, however many calls it answers", () => {
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    spansFromEvents(
      journalOf("run_1", [
        started(0),
        turn(1, "turn_1", 1),
        ...toolCallResponse(2, "turn_1", "call_65", "probe"),
        {
          type: "tool.excess_rejected",
          at: 20,
          data: {
            turnId: "turn_1",
            toolCallId: "call_65",
            toolName: "probe",
            fromIndex: 0,
            count: 1,
            code: "TOOL_CALL_LIMIT",
            result: result("error", "too many", "TOOL_CALL_LIMIT"),
          },
        },
      ]),
      provider.getTracer("test"),
    );
    const tools = exporter.getFinishedSpans().filter((span) => span.name === "execute_tool probe");
    expect(tools).toHaveLength(1);
    expect(tools[0]!.status).toEqual({ code: SpanStatusCode.ERROR, message: "TOOL_CALL_LIMIT: too many" });
  });
});
