// The overflow error is what an operator reads when a run stops: it must say which part did
// not fit and what to do next. Kills overflow.ts:23-26 (reports/mutation/context-compiler.md).
import { YokeError } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { contextOverflowError, isContextOverflow, type ContextOverflowDetails } from "./overflow.js";

const base: ContextOverflowDetails = {
  reason: "context_overflow",
  what: "transcript",
  required: 9_000,
  available: 7_000,
  contextWindow: 8_000,
  outputReserve: 1_000,
  sections: { transcript: 8_500 },
  compactionRequired: false,
};

describe("contextOverflowError", () => {
  it("names mandatory context, the window and the output reserve, and says no constraint is dropped", () => {
    const error = contextOverflowError({ ...base, what: "mandatory" });
    expect(error.message).toBe("mandatory context needs 9000 tokens but only 7000 are available (window 8000 − output 1000); no constraint is dropped");
    expect(error.details).toEqual({ ...base, what: "mandatory" });
  });

  it.each([
    [{ compactionRequired: true }, "the transcript needs 9000 tokens but only 7000 are available; run compactContext first"],
    [{ compactionFailed: true }, "the transcript needs 9000 tokens but only 7000 are available; compaction could not free enough"],
    [{ compactionFailed: false }, "the transcript needs 9000 tokens but only 7000 are available; configure a compaction policy"],
    [{}, "the transcript needs 9000 tokens but only 7000 are available; configure a compaction policy"],
  ] as const)("for the transcript, says what to do next (%j)", (changes, message) => {
    const error = contextOverflowError({ ...base, ...changes });
    expect(error.message).toBe(message);
    expect(isContextOverflow(error)).toBe(true);
  });

  it("isContextOverflow is true only for CONTEXT_OVERFLOW", () => {
    expect(isContextOverflow(new YokeError("CONFIG_INVALID", "no"))).toBe(false);
    expect(isContextOverflow(new Error("CONTEXT_OVERFLOW"))).toBe(false);
  });
});
