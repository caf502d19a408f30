// The fold's tool-registry events: a run pins the revisions of its snapshot; a drift blocks a
// tool until a `tool.readmitted` replaces its pinned revision; a drift must name what is pinned.
import { describe, expect, it } from "vitest";
import { YokeError } from "./errors.js";
import { reduceRun } from "./run-state.js";
import type { ToolRevisionRecord } from "./tool-registry.js";
import { eventsOf, toolUse } from "./__fixtures__/events-of.js";

const digest = (c: string) => c.repeat(64);

function revision(name: string, d: string, description = "reads"): ToolRevisionRecord {
  return {
    name,
    digest: digest(d),
    modelDigest: digest("a"),
    contractDigest: digest("b"),
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
    origin: { kind: "mcp-http", url: "http://127.0.0.1:1/mcp" },
    trustDomain: "third-party",
    capabilities: ["fs.read"],
  };
}

const read = revision("read", "1");
const write = revision("write", "2");
const started = {
  type: "run.started",
  data: {
    sessionId: "session_1",
    task: "t",
    tools: [read.spec, write.spec],
    toolSnapshot: { digest: digest("f"), revisions: [read, write] },
    limits: { maxTurns: 3 },
    release: { runtime: "test", eventSchemaVersion: 1 },
  },
};

describe("tool revisions in the fold", () => {
  it("pins the snapshot's revisions by name", () => {
    const state = reduceRun(eventsOf([started]));
    expect(state.toolSnapshot?.digest).toBe(digest("f"));
    expect([...state.pinnedTools.keys()]).toEqual(["read", "write"]);
    expect(state.driftedTools.size).toBe(0);
  });

  it("records the tools offered to the turn", () => {
    const offered = { digest: digest("e"), tools: [{ name: "read", digest: read.digest }] };
    const state = reduceRun(eventsOf([started, { type: "turn.started", data: { turnId: "turn_1", index: 1, offered } }]));
    expect(state.offeredTools).toEqual(offered);
  });

  it("blocks a drifted tool until it is re-admitted, and then pins the new revision", () => {
    const newer = revision("read", "3", "reads, now better");
    const drifted = { type: "tool.drifted", data: { toolName: "read", pinned: read.digest, offered: newer.digest, changes: ["description"] } };
    const blocked = reduceRun(eventsOf([started, drifted]));
    expect(blocked.driftedTools.get("read")?.offered).toBe(newer.digest);
    expect(blocked.pinnedTools.get("read")?.digest).toBe(read.digest);
    const readmitted = { type: "tool.readmitted", data: { toolName: "read", rule: "descriptions-ok", revision: newer } };
    const admitted = reduceRun(eventsOf([started, drifted, readmitted]));
    expect(admitted.driftedTools.size).toBe(0);
    expect(admitted.pinnedTools.get("read")?.digest).toBe(newer.digest);
    // the snapshot itself is what run.started pinned, unchanged
    expect(admitted.toolSnapshot?.revisions[0]?.digest).toBe(read.digest);
  });

  it("refuses a drift that names a revision the run does not pin, and a re-admission of another tool's revision", () => {
    const wrong = { type: "tool.drifted", data: { toolName: "read", pinned: digest("9"), offered: null, changes: ["removed"] } };
    expect(() => reduceRun(eventsOf([started, wrong]))).toThrow(YokeError);
    const mismatched = { type: "tool.readmitted", data: { toolName: "read", rule: "r", revision: write } };
    expect(() => reduceRun(eventsOf([started, mismatched]))).toThrow(/another tool/);
  });

  it("records the revision an action runs, and refuses an admission naming a revision the run does not pin", () => {
    const turn = { type: "turn.started", data: { turnId: "turn_1", index: 1 } };
    const requested = { type: "model.requested", data: { turnId: "turn_1", requestHash: digest("c"), messageCount: 1 } };
    const responded = { type: "model.responded", data: { turnId: "turn_1", response: toolUse(["call_1", "read"]), latencyMs: 0 } };
    const admitted = (toolRevision: string) => ({
      type: "action.admitted",
      data: {
        turnId: "turn_1",
        toolCallId: "call_1",
        toolName: "read",
        actionId: "action_1",
        input: {},
        sideEffect: "none",
        toolRevision,
        decision: "allow",
        rule: "default",
        attemptId: "attempt_1",
        attempt: 1,
        deadlineAt: 10,
      },
    });
    const state = reduceRun(eventsOf([started, turn, requested, responded, admitted(read.digest)]));
    expect(state.actions[0]?.toolRevision).toBe(read.digest);
    expect(() => reduceRun(eventsOf([started, turn, requested, responded, admitted(write.digest)]))).toThrow(/does not pin/);
  });

  it("accepts a drift for an added tool (nothing pinned)", () => {
    const added = { type: "tool.drifted", data: { toolName: "delete", pinned: null, offered: digest("7"), changes: ["added"] } };
    expect(reduceRun(eventsOf([started, added])).driftedTools.has("delete")).toBe(true);
  });
});
