import { describe, expect, it } from "vitest";
import { ArtifactRefSchema, artifactDigestOf } from "./artifacts.js";
import { EVENT_DATA_SCHEMAS } from "./events.js";
import { ToolResultEnvelopeSchema } from "./model.js";

const digest = `sha256:${"a1".repeat(32)}`;
const timing = { startedAt: 0, endedAt: 1, durationMs: 1 };

describe("ArtifactRef", () => {
  it("accepts a sha256 digest with its byte length and an optional media type", () => {
    expect(ArtifactRefSchema.parse({ digest, bytes: 20_000_000 })).toEqual({ digest, bytes: 20_000_000 });
    expect(ArtifactRefSchema.parse({ digest, bytes: 3, mediaType: "text/plain; charset=utf-8" }).mediaType).toBe("text/plain; charset=utf-8");
    expect(artifactDigestOf({ digest, bytes: 3 })).toBe(digest);
    expect(artifactDigestOf(digest)).toBe(digest);
  });

  it("refuses a digest that is not sha256:<64 lowercase hex>, and a negative length", () => {
    for (const bad of ["a1".repeat(32), `sha256:${"A1".repeat(32)}`, `sha256:${"a1".repeat(31)}`, `md5:${"a1".repeat(32)}`]) {
      expect(ArtifactRefSchema.safeParse({ digest: bad, bytes: 1 }).success).toBe(false);
    }
    expect(ArtifactRefSchema.safeParse({ digest, bytes: -1 }).success).toBe(false);
  });
});

describe("tool result envelope with an out-of-line output", () => {
  const cut = {
    status: "ok",
    content: [{ type: "text", text: "the first bytes" }],
    truncation: { originalBytes: 20_000_000, keptBytes: 15, artifact: { digest, bytes: 20_000_000, mediaType: "text/plain; charset=utf-8" } },
    timing,
  };

  it("parses in every event that carries a result", () => {
    expect(ToolResultEnvelopeSchema.parse(cut).truncation?.artifact?.digest).toBe(digest);
    const committed = EVENT_DATA_SCHEMAS["action.committed"].parse({ actionId: "action_1", attemptId: "attempt_1", result: cut });
    expect(committed.result.truncation?.artifact?.bytes).toBe(20_000_000);
  });

  it("keeps envelopes journaled before it parseable (the field is optional)", () => {
    const old = { status: "ok", content: [{ type: "text", text: "x" }], truncation: { originalBytes: 9, keptBytes: 1, artifactHash: "ab" }, timing };
    expect(ToolResultEnvelopeSchema.parse(old)).toEqual(old);
    expect(ToolResultEnvelopeSchema.safeParse({ ...cut, truncation: { ...cut.truncation, artifact: { digest: "nope", bytes: 1 } } }).success).toBe(false);
  });
});
