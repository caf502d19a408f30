import { describe, expect, it } from "vitest";
import { parseYokeEvent, type AssistantPart, type JournalEvent } from "@yoke/protocol";
import { describeEvent } from "../src/timeline.ts";

const responded = (content: AssistantPart[]): JournalEvent => ({
  schemaVersion: 1,
  tenantId: "tenant_a",
  runId: "run_a",
  seq: 3,
  type: "model.responded",
  at: 0,
  causationId: null,
  data: {
    turnId: "turn_1",
    response: { provider: "scripted", model: "m", content, stopReason: "max_tokens", usage: { inputTokens: 1, outputTokens: 1 } },
    latencyMs: 0,
  },
  prevHash: "0".repeat(64),
  hash: "1".repeat(64),
});

describe("the timeline", () => {
  it("names refusals, cut calls and server tool blocks as what they are, not as reasoning", () => {
    const line = describeEvent(
      parseYokeEvent(
        responded([
          { type: "refusal", text: "I can't help with that." },
          { type: "tool-call-truncated", toolCallId: "c1", toolName: "write_file", rawArguments: '{"path":"a' },
          { type: "server-tool-call", provider: "anthropic", toolCallId: "s1", toolName: "web_search", arguments: {}, raw: {} },
          { type: "server-tool-result", provider: "anthropic", toolCallId: "s1", resultType: "web_search_tool_result", raw: {} },
        ]),
      ),
    );
    expect(line).toContain('[refusal] "I can\'t help with that."');
    expect(line).toContain('write_file({"path":"a… cut by the output limit)');
    expect(line).toContain("[anthropic ran web_search]");
    expect(line).toContain("[web_search_tool_result]");
    expect(line).not.toContain("[reasoning]");
  });

  it("says why a run stopped and that it can be resumed", () => {
    const failed = parseYokeEvent({
      ...responded([]),
      type: "run.failed",
      data: { turnId: "turn_1", code: "PROVIDER_UNAVAILABLE", message: "503", retryable: true, requestId: "req_1", attempts: 3 },
    });
    expect(describeEvent(failed)).toContain("stopped: PROVIDER_UNAVAILABLE (request req_1); resume to continue");
  });
});
