// The spans of a real run (a real harness on a memory journal, the testkit's scripted model,
// real tools), checked against the GenAI semantic conventions package's own constants.
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { BasicTracerProvider, InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_AGENT_NAME,
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_RESPONSE_ID,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
} from "@opentelemetry/semantic-conventions/incubating";
import { createSpanObserver, spansFromEvents } from "@yoke/otel";
import type { YokeEvent } from "@yoke/protocol";
import { beforeAll, describe, expect, it } from "vitest";
import { MODEL, RUN_ID, runDemo, TENANT } from "../src/run-demo.ts";
import { millisOf, pathOf, shapesOf } from "./span-shape.ts";

function collector() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { exporter, tracer: provider.getTracer("test") };
}

let events: YokeEvent[];
let live: ReadableSpan[];
let past: ReadableSpan[];

beforeAll(async () => {
  const liveCollector = collector();
  const observer = createSpanObserver(liveCollector.tracer, { agentName: "demo-agent" });
  const result = await runDemo(observer.onEvent);
  observer.finish();
  expect(result.outcome).toBe("verified_success");
  events = result.events;
  live = liveCollector.exporter.getFinishedSpans();
  const pastCollector = collector();
  spansFromEvents(events, pastCollector.tracer, { agentName: "demo-agent" });
  past = pastCollector.exporter.getFinishedSpans();
});

const named = (spans: readonly ReadableSpan[], name: string) => spans.filter((span) => span.name === name);
const one = (spans: readonly ReadableSpan[], name: string) => {
  const found = named(spans, name);
  expect(found, name).toHaveLength(1);
  return found[0]!;
};

describe("spans of a real run", () => {
  it("has one root run span, turns under it, model calls and tool attempts under the turns", () => {
    const run = one(past, "invoke_agent demo-agent");
    expect(run.parentSpanContext).toBeUndefined();
    expect(run.kind).toBe(SpanKind.INTERNAL);
    const turns = past.filter((span) => span.name.startsWith("turn "));
    expect(turns.map((span) => span.name)).toEqual(["turn 1", "turn 2", "turn 3"]);
    for (const turn of turns) expect(turn.parentSpanContext?.spanId).toBe(run.spanContext().spanId);
    const traceIds = new Set(past.map((span) => span.spanContext().traceId));
    expect(traceIds.size).toBe(1);
    const paths = past.filter((span) => span !== run && !span.name.startsWith("turn ")).map((span) => pathOf(span, past));
    expect(paths.sort()).toEqual(
      [
        `invoke_agent demo-agent > turn 1 > chat ${MODEL}`,
        "invoke_agent demo-agent > turn 1 > execute_tool read_file",
        `invoke_agent demo-agent > turn 2 > chat ${MODEL}`,
        `invoke_agent demo-agent > turn 2 > chat ${MODEL}`,
        "invoke_agent demo-agent > turn 2 > execute_tool write_file",
        "invoke_agent demo-agent > turn 2 > execute_tool read_file",
        "invoke_agent demo-agent > turn 2 > execute_tool delete_everything",
        `invoke_agent demo-agent > turn 3 > chat ${MODEL}`,
        "invoke_agent demo-agent > turn 3 > verify checkCompletion",
      ].sort(),
    );
  });

  it("names the run span as the conventions' invoke_agent span, with the run's outcome", () => {
    const run = one(past, "invoke_agent demo-agent");
    const started = events.find((event) => event.type === "run.started")!;
    expect(run.attributes[ATTR_GEN_AI_OPERATION_NAME]).toBe(GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT);
    expect(run.attributes[ATTR_GEN_AI_AGENT_NAME]).toBe("demo-agent");
    expect(run.attributes[ATTR_GEN_AI_CONVERSATION_ID]).toBe(started.type === "run.started" ? started.data.sessionId : "");
    expect(run.attributes).toMatchObject({ "yoke.run.id": RUN_ID, "yoke.tenant.id": TENANT, "yoke.run.outcome": "verified_success", "yoke.run.turns": 3 });
    expect(run.status.code).toBe(SpanStatusCode.UNSET);
  });

  it("gives each model call the GenAI chat attributes: operation, provider, models, usage, finish reasons, response id", () => {
    const chats = named(past, `chat ${MODEL}`);
    expect(chats).toHaveLength(4);
    const answered = chats.filter((span) => span.status.code !== SpanStatusCode.ERROR);
    expect(answered).toHaveLength(3);
    for (const span of chats) {
      expect(span.kind).toBe(SpanKind.CLIENT);
      expect(span.attributes[ATTR_GEN_AI_OPERATION_NAME]).toBe(GEN_AI_OPERATION_NAME_VALUE_CHAT);
      expect(span.attributes[ATTR_GEN_AI_REQUEST_MODEL]).toBe(MODEL);
    }
    const [first, second, third] = answered;
    expect(first!.attributes).toMatchObject({
      [ATTR_GEN_AI_PROVIDER_NAME]: "scripted",
      [ATTR_GEN_AI_RESPONSE_MODEL]: MODEL,
      [ATTR_GEN_AI_RESPONSE_ID]: "resp_1",
      [ATTR_GEN_AI_USAGE_INPUT_TOKENS]: 120,
      [ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: 14,
      "yoke.model.stop_reason": "tool_use",
    });
    expect(first!.attributes[ATTR_GEN_AI_RESPONSE_FINISH_REASONS]).toEqual(["tool_use"]);
    expect(second!.attributes).toMatchObject({
      [ATTR_GEN_AI_RESPONSE_ID]: "resp_2",
      [ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS]: 100,
      "yoke.model.attempt": 2,
    });
    expect(third!.attributes).toMatchObject({ [ATTR_GEN_AI_RESPONSE_ID]: "resp_3", "yoke.model.stop_reason": "end_turn" });
  });

  it("makes a rate-limited model call an ERROR span with the Yoke code, and its retry a second chat span", () => {
    const failed = named(past, `chat ${MODEL}`).filter((span) => span.status.code === SpanStatusCode.ERROR);
    expect(failed).toHaveLength(1);
    expect(failed[0]!.attributes).toMatchObject({ [ATTR_ERROR_TYPE]: "PROVIDER_RATE_LIMITED", "yoke.model.attempt": 1, "yoke.retrying": true });
    expect(failed[0]!.status.message).toBe("PROVIDER_RATE_LIMITED: 429 Too Many Requests");
    const retry = named(past, `chat ${MODEL}`).find((span) => span.attributes["yoke.model.attempt"] === 2)!;
    expect(retry.parentSpanContext?.spanId).toBe(failed[0]!.parentSpanContext?.spanId);
    expect(millisOf(retry.startTime)).toBeGreaterThanOrEqual(millisOf(failed[0]!.endTime));
  });

  it("gives each action attempt the execute_tool attributes, its state and side-effect class", () => {
    const write = one(past, "execute_tool write_file");
    expect(write.attributes[ATTR_GEN_AI_OPERATION_NAME]).toBe(GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL);
    expect(write.attributes[ATTR_GEN_AI_TOOL_NAME]).toBe("write_file");
    expect(write.attributes[ATTR_GEN_AI_TOOL_CALL_ID]).toMatch(/^call_/);
    expect(write.attributes).toMatchObject({
      "yoke.action.state": "committed",
      "yoke.action.side_effect": "idempotent",
      "yoke.action.attempt": 1,
      "yoke.action.receipt": false,
    });
    expect(write.attributes["yoke.action.id"]).toMatch(/^action_/);
    expect(write.status.code).toBe(SpanStatusCode.UNSET);
  });

  it("makes a failed action and a call to an unknown tool ERROR spans with the Yoke code", () => {
    const failedRead = named(past, "execute_tool read_file").find((span) => span.attributes["yoke.action.state"] === "failed")!;
    expect(failedRead.status).toEqual({ code: SpanStatusCode.ERROR, message: "TOOL_FAILED: no file missing.txt" });
    expect(failedRead.attributes).toMatchObject({ [ATTR_ERROR_TYPE]: "TOOL_FAILED", "yoke.action.dispatched": true });
    const unknown = one(past, "execute_tool delete_everything");
    expect(unknown.status.code).toBe(SpanStatusCode.ERROR);
    expect(unknown.attributes).toMatchObject({ [ATTR_ERROR_TYPE]: "TOOL_UNKNOWN", "yoke.action.state": "rejected" });
  });

  it("times every span by the journaled events, not the wall clock", () => {
    const at = events.map((event) => event.at);
    const [first, last] = [Math.min(...at), Math.max(...at)];
    for (const span of past) {
      expect(millisOf(span.startTime)).toBeGreaterThanOrEqual(first);
      expect(millisOf(span.endTime)).toBeLessThanOrEqual(last);
      expect(millisOf(span.endTime)).toBeGreaterThanOrEqual(millisOf(span.startTime));
    }
    const run = one(past, "invoke_agent demo-agent");
    expect(millisOf(run.startTime)).toBe(first);
    expect(millisOf(run.endTime)).toBe(events.find((event) => event.type === "run.completed")!.at);
  });

  it("gives the same spans live (onEvent) as from the journal afterwards, and the same again on a second export", () => {
    expect(shapesOf(live)).toEqual(shapesOf(past));
    const again = collector();
    spansFromEvents(events, again.tracer, { agentName: "demo-agent" });
    expect(shapesOf(again.exporter.getFinishedSpans())).toEqual(shapesOf(past));
  });
});
