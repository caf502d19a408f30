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

  it("shows the pinned tool revisions, each turn's offer, drift, re-admission and the revision each action runs", () => {
    const d = (c: string) => c.repeat(64);
    const revision = (name: string, digest: string, description: string) => ({
      name,
      digest,
      modelDigest: d("a"),
      contractDigest: d("b"),
      spec: { name, description, inputSchema: { type: "object" } },
      contract: {
        sideEffect: "none",
        access: "default",
        timeoutMs: 1000,
        outputBudget: null,
        maxAttempts: 3,
        reconciler: false,
        compensator: false,
        dataClassification: "internal",
        network: { egress: "any" },
        owner: null,
      },
      origin: { kind: "mcp-stdio", command: "node", args: ["server.mjs"], env: [] },
      trustDomain: "third-party",
      capabilities: [],
    });
    const event = (type: string, data: Record<string, unknown>) => parseYokeEvent({ ...responded([]), type, data });
    const lookup = revision("lookup", d("1"), "Look a word up.");
    const started = event("run.started", {
      sessionId: "session_1",
      task: "t",
      tools: [lookup.spec],
      toolSnapshot: { digest: d("f"), revisions: [lookup] },
      limits: { maxTurns: 3 },
      release: { runtime: "test", eventSchemaVersion: 1 },
    });
    expect(describeEvent(started)).toContain(`pinned tools ffffffffffff: lookup@111111111111`);
    const turn = event("turn.started", { turnId: "turn_1", index: 1, offered: { digest: d("e"), tools: [{ name: "lookup", digest: d("1") }] } });
    expect(describeEvent(turn)).toContain("turn 1, offered lookup (eeeeeeeeeeee)");
    const drifted = event("tool.drifted", { toolName: "lookup", pinned: d("1"), offered: d("2"), changes: ["description"] });
    expect(describeEvent(drifted)).toContain("lookup description: pinned 111111111111, now 222222222222");
    const readmitted = event("tool.readmitted", { toolName: "lookup", rule: "descriptions-ok", revision: revision("lookup", d("2"), "Look it up.") });
    expect(describeEvent(readmitted)).toContain("lookup@222222222222 by rule descriptions-ok");
    const admitted = event("action.admitted", {
      turnId: "turn_1",
      toolCallId: "c1",
      toolName: "lookup",
      actionId: "action_1",
      input: {},
      sideEffect: "none",
      toolRevision: d("2"),
      decision: "allow",
      rule: "default",
      attemptId: "attempt_1",
      attempt: 1,
      deadlineAt: 1,
    });
    expect(describeEvent(admitted)).toContain("lookup@222222222222 action_1");
  });

  it("says why a run stopped and that it can be resumed", () => {
    const failed = parseYokeEvent({
      ...responded([]),
      type: "run.failed",
      data: { turnId: "turn_1", code: "PROVIDER_UNAVAILABLE", message: "503", retryable: true, requestId: "req_1", attempts: 3 },
    });
    expect(describeEvent(failed)).toContain("stopped: PROVIDER_UNAVAILABLE (request req_1); resume to continue");
  });

  it("shows the budget steps an event carries under it: a reservation on the event that starts the work, a settlement on the one that ends it", () => {
    const attribution = { kind: "model_call", runId: "run_a", turnId: "turn_1" };
    const requested = parseYokeEvent({
      ...responded([]),
      type: "model.requested",
      data: {
        turnId: "turn_1",
        requestHash: "a".repeat(64),
        messageCount: 2,
        reserved: {
          reservationId: "reservation_2",
          parentId: "reservation_1",
          amounts: { turns: 1, tokens: 2148, input_tokens: 100, output_tokens: 2048, wall_time: 0 },
          attribution,
        },
      },
    });
    expect(describeEvent(requested).split("\n")).toEqual([
      expect.stringContaining("model.requested      2 messages, request aaaaaaaaaaaa"),
      `${" ".repeat(26)}budget: reserved turns 1, tokens 2148 (model_call)`,
    ]);
    const answered = parseYokeEvent({
      ...responded([{ type: "text", text: "done" }]),
      data: {
        turnId: "turn_1",
        response: {
          provider: "scripted",
          model: "m",
          content: [{ type: "text", text: "done" }],
          stopReason: "end_turn",
          usage: { inputTokens: 40, outputTokens: 8 },
        },
        latencyMs: 0,
        settled: { reservationId: "reservation_2", charged: { turns: 1, tokens: 48, spend: 240 }, released: { tokens: 2100 }, overshoot: true },
      },
    });
    expect(describeEvent(answered).split("\n")[1]).toBe(`${" ".repeat(26)}budget: settled turns 1, tokens 48, spend 240 (overshoot)`);
    // A dispatch holds a tool operation and a unit of concurrency; the gauge is left out of the line.
    const admitted = parseYokeEvent({
      ...responded([]),
      type: "action.admitted",
      data: {
        turnId: "turn_1",
        toolCallId: "c1",
        toolName: "lookup",
        actionId: "action_1",
        input: {},
        sideEffect: "none",
        decision: "allow",
        rule: "default",
        attemptId: "attempt_1",
        attempt: 1,
        deadlineAt: 1,
        reserved: {
          reservationId: "reservation_3",
          parentId: "reservation_1",
          amounts: { wall_time: 60_007, tool_ops: 1, concurrency: 1 },
          attribution: { kind: "tool_attempt", runId: "run_a", turnId: "turn_1", actionId: "action_1", attemptId: "attempt_1" },
        },
      },
    });
    expect(describeEvent(admitted).split("\n")[1]).toBe(`${" ".repeat(26)}budget: reserved wall_time 60007, tool_ops 1 (tool_attempt)`);
    // An event carrying nothing has no budget line; a budget event says it on its own line.
    expect(describeEvent(responded([]))).not.toContain("budget:");
    const own = parseYokeEvent({
      ...responded([]),
      type: "budget.settled",
      data: { reservationId: "reservation_2", charged: { turns: 1 }, released: {}, overshoot: true },
    });
    expect(describeEvent(own)).toMatch(/budget\.settled\s+charged \{"turns":1\} \(overshoot\)$/);
  });
});
