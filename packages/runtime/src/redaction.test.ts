import { YokeError } from "@yoke/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { REDACTED, createRedactor, redactError } from "./redaction.js";

const SECRET = "sk-live-9f8e7d6c5b4a3210";

describe("createRedactor", () => {
  it("replaces the secret, its JSON escaping and its URL encodings in text", () => {
    const tricky = 'p@ss w/"quote"&=+';
    const redactor = createRedactor([SECRET, tricky]);
    expect(redactor.redactText(`key=${SECRET}; again ${SECRET}`)).toBe(`key=${REDACTED}; again ${REDACTED}`);
    expect(redactor.redactText(JSON.stringify({ password: tricky }))).toBe(`{"password":"${REDACTED}"}`);
    expect(redactor.redactText(`https://x.test/?p=${encodeURIComponent(tricky)}`)).toBe(`https://x.test/?p=${REDACTED}`);
    expect(redactor.redactText(`p=${encodeURIComponent(tricky).replace(/%20/g, "+")}`)).toBe(`p=${REDACTED}`);
    const clean = "nothing to see";
    expect(redactor.redactText(clean)).toBe(clean);
    expect(redactor.containsSecret(`x${SECRET}x`)).toBe(true);
    expect(redactor.containsSecret(clean)).toBe(false);
  });

  it("cuts a base64 or base64url secret out of any longer encoded string, at every alignment (fast-check)", () => {
    const redactor = createRedactor([SECRET]);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 12 }), fc.uint8Array({ maxLength: 12 }), fc.boolean(), (before, after, url) => {
        const bytes = Buffer.concat([Buffer.from(before), Buffer.from(SECRET), Buffer.from(after)]);
        const encoded = bytes.toString(url ? "base64url" : "base64");
        const redacted = redactor.redactText(encoded);
        expect(redacted).toContain(REDACTED);
        // What is left decodes to at most a few bytes of the secret, never the whole of it.
        const leftover = redacted.split(REDACTED).map((part) => Buffer.from(part, url ? "base64url" : "base64").toString("latin1"));
        for (const part of leftover) expect(part).not.toContain(SECRET.slice(0, 8));
      }),
      { numRuns: 300 },
    );
  });

  it("redacts JSON values deeply, keys included, and returns the same object when nothing holds a secret", () => {
    const redactor = createRedactor([SECRET]);
    const value = { a: [1, { [SECRET]: `x ${SECRET}` }], b: Buffer.from(SECRET).toString("base64"), c: null, d: true };
    expect(redactor.redactJson(value)).toEqual({ a: [1, { [REDACTED]: `x ${REDACTED}` }], b: REDACTED, c: null, d: true });
    const clean = { a: [1, { b: "c" }] };
    expect(redactor.redactJson(clean)).toBe(clean);
  });

  it("refuses secrets shorter than 8 characters with CONFIG_INVALID", () => {
    expect(() => createRedactor(["short"])).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    expect(() => createRedactor([42 as never])).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
  });

  it("rebuilds an error whose message, details or cause hold a secret, keeping its code and retryability", () => {
    const redactor = createRedactor([SECRET]);
    const error = new YokeError("PROVIDER_UNAVAILABLE", `upstream said ${SECRET}`, { details: { body: SECRET, status: 503 }, cause: new Error(SECRET) });
    const redacted = redactError(redactor, error) as YokeError;
    expect(redacted).toMatchObject({
      code: "PROVIDER_UNAVAILABLE",
      retryable: true,
      message: `upstream said ${REDACTED}`,
      details: { body: REDACTED, status: 503 },
    });
    expect(redacted.cause).toBeUndefined();
    expect(`${redacted.stack}`).not.toContain(SECRET);
    const clean = new YokeError("RUN_NOT_FOUND", "no run");
    expect(redactError(redactor, clean)).toBe(clean);
    expect((redactError(redactor, new TypeError(`bad ${SECRET}`)) as YokeError).message).toBe(`bad ${REDACTED}`);
  });
});
