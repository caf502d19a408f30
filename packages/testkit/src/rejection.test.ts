import { YokeError } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { rejectionOf, streamCollector } from "./rejection.js";

describe("rejectionOf", () => {
  it("returns the YokeError a promise rejects with", async () => {
    const error = await rejectionOf(
      Promise.reject(new YokeError("JOURNAL_CONFLICT", "stale", { details: { tenantId: "t", runId: "r", expectedSeq: 1, actualSeq: 2 } })),
    );
    expect(error.code).toBe("JOURNAL_CONFLICT");
  });

  it("fails when the promise resolves, or rejects with something else", async () => {
    await expect(rejectionOf(Promise.resolve(1))).rejects.toMatchObject({ code: "TESTKIT_EXPECTATION_FAILED" });
    const plain = new TypeError("not typed");
    await expect(rejectionOf(Promise.reject(plain))).rejects.toBe(plain);
  });
});

describe("streamCollector", () => {
  it("keeps every part, in order", () => {
    const stream = streamCollector();
    stream.onStreamPart({ type: "text-delta", text: "a" });
    stream.onStreamPart({ type: "text-delta", text: "b" });
    expect(stream.parts).toEqual([
      { type: "text-delta", text: "a" },
      { type: "text-delta", text: "b" },
    ]);
  });
});
