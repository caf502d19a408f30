import { describe, expect, it } from "vitest";
import {
  ChainHashSchema,
  EVENT_SCHEMA_VERSION,
  YOKE_EVENT_TYPES,
  GENESIS_HASH,
  JOURNAL_KEY_ID_PATTERN,
  isEventOfType,
  parseYokeEvent,
  type JournalEvent,
} from "./events.js";
import { readYokeEvents } from "./read-events.js";
import { YokeError } from "./errors.js";

const base: Omit<JournalEvent, "type" | "data"> = {
  schemaVersion: EVENT_SCHEMA_VERSION,
  tenantId: "tenant_a",
  runId: "run_1",
  seq: 1,
  at: 0,
  causationId: null,
  prevHash: GENESIS_HASH,
  hash: GENESIS_HASH,
};

describe("parseYokeEvent", () => {
  it("types the data of a canonical event", () => {
    const event = parseYokeEvent({ ...base, type: "turn.started", data: { turnId: "turn_1", index: 1 } });
    expect(event.type).toBe("turn.started");
    if (event.type === "turn.started") expect(event.data.index).toBe(1);
  });

  it("rejects unknown types and invalid data with EVENT_INVALID naming the seq", () => {
    const unknown = () => parseYokeEvent({ ...base, type: "turn.exploded", data: {} });
    expect(unknown).toThrow(YokeError);
    try {
      parseYokeEvent({ ...base, seq: 7, type: "turn.started", data: { turnId: "turn_1", index: "one" } });
      expect.unreachable();
    } catch (error) {
      expect(YokeError.hasCode(error, "EVENT_INVALID")).toBe(true);
      expect((error as YokeError).details).toMatchObject({ seq: 7, type: "turn.started" });
    }
  });

  it("keeps the provider's request id on model.responded and model.failed; events without one still parse", () => {
    const response = { provider: "openai", model: "gpt-5-mini", content: [], stopReason: "end_turn", usage: { inputTokens: 1, outputTokens: 1 } };
    const responded = parseYokeEvent({
      ...base,
      type: "model.responded",
      data: { turnId: "turn_1", response: { ...response, requestId: "req_1" }, latencyMs: 3 },
    });
    expect(responded.type === "model.responded" && responded.data.response.requestId).toBe("req_1");
    const old = parseYokeEvent({ ...base, type: "model.responded", data: { turnId: "turn_1", response, latencyMs: 3 } });
    expect(old.type === "model.responded" && old.data.response.requestId).toBeUndefined();
    const failure = { turnId: "turn_1", attempt: 1, code: "PROVIDER_STREAM_CUT", message: "cut", retryable: true, retrying: false };
    const failed = parseYokeEvent({ ...base, type: "model.failed", data: { ...failure, requestId: "req_2" } });
    expect(failed.type === "model.failed" && failed.data.requestId).toBe("req_2");
    expect(parseYokeEvent({ ...base, type: "model.failed", data: failure }).type).toBe("model.failed");
  });

  it("refuses events from a newer schema version instead of misreading them", () => {
    const newer = () => parseYokeEvent({ ...base, schemaVersion: EVENT_SCHEMA_VERSION + 1, type: "turn.started", data: { turnId: "t", index: 1 } });
    expect(newer).toThrow(expect.objectContaining({ code: "JOURNAL_SCHEMA_UNSUPPORTED" }));
  });

  it("validates every outcome of the closed set and nothing else", () => {
    const completed = (outcome: unknown) => () => parseYokeEvent({ ...base, type: "run.completed", data: { outcome: outcome as never, turns: 1 } });
    expect(completed({ status: "verified_success" })).not.toThrow();
    expect(completed({ status: "completed" })).not.toThrow();
    expect(completed({ status: "budget_exhausted", budget: "turns", limit: 3 })).not.toThrow();
    expect(completed({ status: "escalated", reason: "uncertain action", actionId: "action_1" })).not.toThrow();
    expect(completed({ status: "done" })).toThrow(YokeError);
  });
});

describe("ChainHashSchema", () => {
  it("accepts a SHA-256 hash and a keyed hmac-sha256:<keyId>:<hex> hash, nothing else", () => {
    const hex = "ab".repeat(32);
    for (const ok of [hex, `hmac-sha256:k1:${hex}`, `hmac-sha256:tenant-key_2024.1:${hex}`]) expect(ChainHashSchema.safeParse(ok).success).toBe(true);
    for (const bad of [`hmac-sha256::${hex}`, `hmac-sha256:k:1:${hex}`, `hmac-sha256:k1:${hex.slice(2)}`, `sha256:${hex}`, hex.toUpperCase()]) {
      expect(ChainHashSchema.safeParse(bad).success).toBe(false);
    }
    expect(JOURNAL_KEY_ID_PATTERN.test("k".repeat(65))).toBe(false);
  });
});

describe("typed events", () => {
  const turn = parseYokeEvent({ ...base, type: "turn.started", data: { turnId: "turn_1", index: 1 } });
  const failed = parseYokeEvent({
    ...base,
    type: "run.failed",
    data: { turnId: "turn_1", code: "PROVIDER_UNAVAILABLE", message: "503", retryable: true, requestId: "req_1", attempts: 3 },
  });

  it("isEventOfType narrows by one type or several", () => {
    expect(isEventOfType(turn, "turn.started")).toBe(true);
    expect(isEventOfType(turn, "run.failed")).toBe(false);
    expect(isEventOfType(failed, ["run.failed", "run.completed"])).toBe(true);
    expect(isEventOfType(turn, ["run.failed", "run.completed"])).toBe(false);
    if (isEventOfType(failed, "run.failed"))
      expect([failed.data.code, failed.data.requestId, failed.data.attempts]).toEqual(["PROVIDER_UNAVAILABLE", "req_1", 3]);
  });

  it("readYokeEvents yields a store's events validated and typed, and refuses one that is not Yoke's", async () => {
    const stored: JournalEvent[] = [{ ...base, seq: 0, type: "turn.started", data: { turnId: "turn_1", index: 1 } }];
    const store = {
      read: async function* () {
        yield* stored;
      },
    };
    const read = [];
    for await (const event of readYokeEvents(store, { tenantId: "tenant_a", runId: "run_1" })) read.push(event);
    expect(read).toEqual(stored);
    stored.push({ ...base, seq: 1, type: "turn.exploded", data: {} });
    const drain = async () => {
      for await (const _event of readYokeEvents(store, { tenantId: "tenant_a", runId: "run_1" }));
    };
    await expect(drain()).rejects.toMatchObject({ code: "EVENT_INVALID" });
  });
});

describe("EVENT_DATA_SCHEMAS", () => {
  it("lists the event types in the order a run writes them (composed from the family modules)", () => {
    expect(YOKE_EVENT_TYPES).toEqual([
      "run.started",
      "run.delegated",
      "settings.changed",
      "turn.started",
      "tool.drifted",
      "tool.readmitted",
      "model.requested",
      "context.compiled",
      "model.responded",
      "model.failed",
      "tool.rejected",
      "tool.excess_rejected",
      "tool.started",
      "tool.completed",
      "action.admitted",
      "action.proposed",
      "action.validated",
      "action.authorized",
      "action.approval_requested",
      "approval.granted",
      "approval.denied",
      "approval.voided",
      "action.leased",
      "action.executing",
      "action.committed",
      "action.uncertain",
      "action.failed",
      "action.reconciled",
      "action.compensating",
      "action.compensated",
      "action.compensation_failed",
      "completion.checked",
      "budget.opened",
      "budget.reserved",
      "budget.settled",
      "verifier.started",
      "verifier.finished",
      "release.changed",
      "release.migrated",
      "run.waiting",
      "loop.detected",
      "session.appended",
      "interrupt.requested",
      "interrupt.landed",
      "input.added",
      "run.completed",
      "run.failed",
    ]);
  });
});
