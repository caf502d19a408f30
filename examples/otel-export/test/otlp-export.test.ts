// The demo run exported live over OTLP/HTTP to a receiver this test starts on 127.0.0.1:
// what arrives is decoded from the wire (OTLP JSON) and checked.
import { spawn } from "node:child_process";
import { join } from "node:path";
import {
  ATTR_ERROR_TYPE,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_PROVIDER_NAME,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_FINISH_REASONS,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  GEN_AI_OPERATION_NAME_VALUE_CHAT,
  GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL,
  GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT,
} from "@opentelemetry/semantic-conventions/incubating";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { exportDemo } from "../src/export-demo.ts";
import { MODEL, RUN_ID, START } from "../src/run-demo.ts";
import { type OtlpReceiver, receivedSpans, startOtlpReceiver } from "./otlp-receiver.ts";

let receiver: OtlpReceiver;
beforeEach(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await receiver.close();
});

describe("exporting a run over OTLP/HTTP", () => {
  it("delivers every span of the run to the receiver, as OTLP JSON with the GenAI attributes", async () => {
    const result = await exportDemo(receiver.url, "otel-export-test");
    expect(result.outcome).toBe("verified_success");
    expect(receiver.requests.length).toBeGreaterThan(0);
    for (const request of receiver.requests) {
      expect(request.method).toBe("POST");
      expect(request.path).toBe("/v1/traces");
      expect(request.headers["content-type"]).toBe("application/json");
    }
    const spans = receivedSpans(receiver.requests);
    expect(spans).toHaveLength(result.spans);
    expect(new Set(spans.map((span) => span.traceId))).toEqual(new Set(result.traceIds));
    for (const span of spans) {
      expect(span.resource["service.name"]).toBe("otel-export-test");
      expect(span.scope).toBe("@yoke/example-otel-export");
    }

    const byId = new Map(spans.map((span) => [span.spanId, span]));
    const roots = spans.filter((span) => span.parentSpanId === undefined);
    expect(roots.map((span) => span.name)).toEqual(["invoke_agent demo-agent"]);
    const root = roots[0]!;
    expect(root.attributes).toMatchObject({ [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_INVOKE_AGENT, "yoke.run.id": RUN_ID });
    expect(root.startMs).toBeGreaterThanOrEqual(START);

    const parentName = (span: (typeof spans)[number]) => byId.get(span.parentSpanId ?? "")?.name;
    const chats = spans.filter((span) => span.name === `chat ${MODEL}`);
    expect(chats).toHaveLength(4);
    for (const chat of chats) {
      expect(parentName(chat)).toMatch(/^turn \d$/);
      expect(chat.kind).toBe(3); // SPAN_KIND_CLIENT on the wire
      expect(chat.attributes).toMatchObject({ [ATTR_GEN_AI_OPERATION_NAME]: GEN_AI_OPERATION_NAME_VALUE_CHAT, [ATTR_GEN_AI_REQUEST_MODEL]: MODEL });
    }
    const answered = chats.filter((chat) => chat.status.code !== 2);
    expect(answered.map((chat) => chat.attributes[ATTR_GEN_AI_USAGE_INPUT_TOKENS])).toEqual([120, 180, 260]);
    expect(answered.map((chat) => chat.attributes[ATTR_GEN_AI_RESPONSE_FINISH_REASONS])).toEqual([["tool_use"], ["tool_use"], ["end_turn"]]);
    expect(answered.every((chat) => chat.attributes[ATTR_GEN_AI_PROVIDER_NAME] === "scripted")).toBe(true);
    const rateLimited = chats.filter((chat) => chat.status.code === 2); // STATUS_CODE_ERROR
    expect(rateLimited.map((chat) => chat.attributes[ATTR_ERROR_TYPE])).toEqual(["PROVIDER_RATE_LIMITED"]);

    const tools = spans.filter((span) => span.attributes[ATTR_GEN_AI_OPERATION_NAME] === GEN_AI_OPERATION_NAME_VALUE_EXECUTE_TOOL);
    expect(tools.map((span) => `${span.name} ${span.attributes["yoke.action.state"]}`).sort()).toEqual([
      "execute_tool delete_everything rejected",
      "execute_tool read_file committed",
      "execute_tool read_file failed",
      "execute_tool write_file committed",
    ]);
    for (const tool of tools) {
      expect(tool.name).toBe(`execute_tool ${tool.attributes[ATTR_GEN_AI_TOOL_NAME]}`);
      expect(parentName(tool)).toMatch(/^turn \d$/);
    }
  });

  it("runs as a program: node src/main.ts --otlp <url> exports the run and says so", async () => {
    const child = spawn(process.execPath, [join(import.meta.dirname, "../src/main.ts"), "--otlp", receiver.url], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(stderr).not.toMatch(/error/i);
    expect(code).toBe(0);
    const spans = receivedSpans(receiver.requests);
    expect(stdout).toContain(`run ended verified_success; exported ${spans.length} spans to ${receiver.url}`);
    expect(spans.filter((span) => span.parentSpanId === undefined).map((span) => span.name)).toEqual(["invoke_agent demo-agent"]);
  });
});
