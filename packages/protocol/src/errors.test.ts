import { describe, expect, it } from "vitest";
import { YOKE_ERROR_CODES, YokeError } from "./errors.js";

describe("YokeError", () => {
  it("carries code, retryability, details and cause", () => {
    const cause = new Error("disk");
    const details = { tenantId: "t", runId: "r", expectedSeq: 3, actualSeq: 4 };
    const error = new YokeError("JOURNAL_CONFLICT", "stale", { details, cause });
    expect(error.code).toBe("JOURNAL_CONFLICT");
    expect(error.retryable).toBe(true);
    expect(error.details).toEqual(details);
    expect(error.details).not.toBe(details);
    expect(error.cause).toBe(cause);
    expect(Object.isFrozen(error.details)).toBe(true);
    expect(error.toJSON()).toMatchObject({ code: "JOURNAL_CONFLICT", message: "stale" });
  });

  it("a code without details has an empty, frozen details object (the shape errors always had)", () => {
    const error = new YokeError("TOOL_UNKNOWN", "no such tool");
    expect(error.details).toEqual({});
    expect(Object.isFrozen(error.details)).toBe(true);
    expect(JSON.stringify(error)).toBe('{"name":"YokeError","code":"TOOL_UNKNOWN","message":"no such tool","retryable":false,"details":{}}');
  });

  it("is recognised across copies of the package through a global symbol", () => {
    const foreign = Object.assign(new Error("x"), { [Symbol.for("@yoke/protocol.YokeError")]: true, code: "INTERNAL" });
    expect(YokeError.isInstance(foreign)).toBe(true);
    expect(YokeError.isInstance(new Error("x"))).toBe(false);
    expect(YokeError.hasCode(new YokeError("INTERNAL", "x"), "INTERNAL")).toBe(true);
    expect(YokeError.hasCode(new YokeError("INTERNAL", "x"), "CANCELLED")).toBe(false);
  });

  it("every code has a summary", () => {
    for (const [code, entry] of Object.entries(YOKE_ERROR_CODES)) {
      expect(code).toMatch(/^[A-Z_]+$/);
      expect(entry.summary.length).toBeGreaterThan(10);
    }
  });
});
