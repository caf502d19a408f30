// Every stop outcome but the two successes is an ERROR run span: a dashboard that counts
// failed runs by span status must see a run whose verifier rejected the work (or that was
// refused, escalated, cancelled, out of budget) as failed, never as a normal span.
import { SpanStatusCode } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import type { Outcome } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { journalOf, started } from "./__fixtures__/events.js";
import { GEN_AI } from "./attributes.js";
import { spansFromEvents } from "./span-observer.js";

function runSpanOf(outcome: Outcome) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  spansFromEvents(journalOf("run_1", [started(0), { type: "run.completed", at: 9, data: { outcome, turns: 1 } }]), provider.getTracer("test"));
  return exporter.getFinishedSpans().find((span) => span.name === "invoke_agent yoke")!;
}

const FAILED: readonly (readonly [Outcome, string])[] = [
  [{ status: "verification_failed", reason: "tests fail" }, "verification_failed: tests fail"],
  [{ status: "refused", reason: "the model refused" }, "refused: the model refused"],
  [{ status: "escalated", reason: "nobody can settle action_1", actionId: "action_1" }, "escalated: nobody can settle action_1"],
  [{ status: "cancelled", reason: "the user cancelled" }, "cancelled: the user cancelled"],
  [{ status: "budget_exhausted", budget: "tool_ops", limit: 3 }, "budget_exhausted: tool_ops limit 3"],
];

describe("the run span's status follows the outcome", () => {
  it.for(FAILED)("%o ends the run span with ERROR, its status as error.type", ([outcome, message]) => {
    const run = runSpanOf(outcome);
    expect(run.status).toEqual({ code: SpanStatusCode.ERROR, message });
    expect(run.attributes[GEN_AI.errorType]).toBe(outcome.status);
    expect(run.attributes["yoke.run.outcome"]).toBe(outcome.status);
  });

  it.for([{ status: "verified_success", summary: "all green" }, { status: "completed" }] as const)(
    "%o leaves the run span UNSET, with no error.type",
    (outcome) => {
      const run = runSpanOf(outcome);
      expect(run.status.code).toBe(SpanStatusCode.UNSET);
      expect(run.attributes[GEN_AI.errorType]).toBeUndefined();
    },
  );
});
