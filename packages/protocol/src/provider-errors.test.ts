import { describe, expect, it } from "vitest";
import { YokeError } from "./errors.js";
import { cancellable, providerError, retryAfterMs, withRequestId } from "./provider-errors.js";

const context = { provider: "test", signal: undefined, streamStarted: false, now: () => Date.UTC(2026, 0, 1) };
const withStatus = (status: number, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(`HTTP ${status}`), { status, headers, ...extra });

describe("providerError", () => {
  it("maps 429 to a retryable PROVIDER_RATE_LIMITED carrying the wait", () => {
    const error = providerError(withStatus(429, { "retry-after": "2" }), context);
    expect(error).toMatchObject({ code: "PROVIDER_RATE_LIMITED", retryable: true, details: { status: 429, retryAfterMs: 2000 } });
  });

  it("treats a spent quota as not retryable", () => {
    expect(providerError(withStatus(429, {}, { code: "insufficient_quota" }), context).retryable).toBe(false);
  });

  it("maps 5xx, 408 and 409 to PROVIDER_UNAVAILABLE and other 4xx to PROVIDER_REQUEST_INVALID", () => {
    for (const status of [500, 503, 529, 408, 409]) expect(providerError(withStatus(status), context).code).toBe("PROVIDER_UNAVAILABLE");
    for (const status of [400, 401, 404, 422]) expect(providerError(withStatus(status), context).code).toBe("PROVIDER_REQUEST_INVALID");
  });

  it("names a cancelled call CANCELLED and a transport failure after the first event PROVIDER_STREAM_CUT", () => {
    const controller = new AbortController();
    controller.abort();
    expect(providerError(new Error("aborted"), { ...context, signal: controller.signal }).code).toBe("CANCELLED");
    expect(providerError(new Error("socket hang up"), { ...context, streamStarted: true }).code).toBe("PROVIDER_STREAM_CUT");
    expect(providerError(new Error("ECONNREFUSED"), context).code).toBe("PROVIDER_UNAVAILABLE");
  });

  it("classifies error events inside a stream by their type", () => {
    expect(providerError(Object.assign(new Error("slow down"), { error: { type: "rate_limit_error" } }), context).code).toBe("PROVIDER_RATE_LIMITED");
    expect(providerError(Object.assign(new Error("busy"), { error: { type: "overloaded_error" } }), context).code).toBe("PROVIDER_UNAVAILABLE");
  });

  it("classifies an error the same with and without an HTTP status: quota, billing, auth, permission, invalid request and context length never retry", () => {
    const cases: [string, number, string, boolean, string][] = [
      ["insufficient_quota", 429, "PROVIDER_RATE_LIMITED", false, "quota"],
      ["billing_error", 402, "PROVIDER_REQUEST_INVALID", false, "billing"],
      ["authentication_error", 401, "PROVIDER_REQUEST_INVALID", false, "authentication"],
      ["invalid_api_key", 401, "PROVIDER_REQUEST_INVALID", false, "authentication"],
      ["permission_error", 403, "PROVIDER_REQUEST_INVALID", false, "permission"],
      ["not_found_error", 404, "PROVIDER_REQUEST_INVALID", false, "not_found"],
      ["request_too_large", 413, "PROVIDER_REQUEST_INVALID", false, "request_too_large"],
      ["invalid_request_error", 400, "PROVIDER_REQUEST_INVALID", false, "invalid_request"],
      ["context_length_exceeded", 400, "PROVIDER_REQUEST_INVALID", false, "context_length"],
      ["rate_limit_exceeded", 429, "PROVIDER_RATE_LIMITED", true, "rate_limit"],
      ["rate_limit_error", 429, "PROVIDER_RATE_LIMITED", true, "rate_limit"],
      ["overloaded_error", 529, "PROVIDER_UNAVAILABLE", true, "overloaded"],
      ["api_error", 500, "PROVIDER_UNAVAILABLE", true, "server"],
      ["server_error", 500, "PROVIDER_UNAVAILABLE", true, "server"],
    ];
    for (const [type, status, code, retryable, kind] of cases) {
      const expected = { code, retryable, details: { type, kind } };
      expect(providerError(withStatus(status, {}, { code: type }), context), `${type} as HTTP ${status}`).toMatchObject(expected);
      const inStream = Object.assign(new Error(type), { error: { type: "error", error: { type } } });
      expect(providerError(inStream, { ...context, streamStarted: true }), `${type} in a stream`).toMatchObject(expected);
    }
  });

  it("does not retry a status-less error of a type nobody knows", () => {
    const error = providerError(Object.assign(new Error("?"), { error: { type: "error", error: { type: "something_new" } } }), {
      ...context,
      streamStarted: true,
    });
    expect(error).toMatchObject({ code: "PROVIDER_UNAVAILABLE", retryable: false, details: { type: "something_new", kind: "unknown" } });
  });

  it("reads a transport error's own code as no provider error: lost mid-stream it is a retryable cut", () => {
    const socket = Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" });
    expect(providerError(socket, { ...context, streamStarted: true })).toMatchObject({ code: "PROVIDER_STREAM_CUT", retryable: true });
    const refused = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
    expect(providerError(refused, context)).toMatchObject({ code: "PROVIDER_UNAVAILABLE", retryable: true });
  });

  it("gives a headerless failure after the 200 the response's request id; the error's own header wins", () => {
    const cut = providerError(new TypeError("terminated"), { ...context, streamStarted: true, requestId: "req_stream" });
    expect(cut).toMatchObject({ code: "PROVIDER_STREAM_CUT", details: { requestId: "req_stream" } });
    const own = providerError(withStatus(500, { "x-request-id": "req_own" }), { ...context, requestId: "req_stream" });
    expect(own.details.requestId).toBe("req_own");
  });

  it("passes a YokeError through unchanged", () => {
    const original = new YokeError("CANCELLED", "stop");
    expect(providerError(original, context)).toBe(original);
  });
});

describe("withRequestId", () => {
  it("adds a request id to a YokeError without one, keeping code, retryability and cause", () => {
    const cause = new Error("root");
    const error = new YokeError("PROVIDER_STREAM_CUT", "cut", { cause, details: { provider: "openai" }, retryable: false });
    const tagged = withRequestId(error, "req_1");
    expect(tagged).toMatchObject({ code: "PROVIDER_STREAM_CUT", message: "cut", retryable: false, cause, details: { provider: "openai", requestId: "req_1" } });
    expect(withRequestId(tagged, "req_2")).toBe(tagged);
    expect(withRequestId(error, undefined)).toBe(error);
    const plain = new Error("not ours");
    expect(withRequestId(plain, "req_1")).toBe(plain);
  });
});

describe("retryAfterMs", () => {
  it("reads retry-after-ms, then retry-after as seconds or an HTTP date", () => {
    const now = () => Date.UTC(2026, 0, 1);
    expect(retryAfterMs({ headers: { "retry-after-ms": "250" } }, now)).toBe(250);
    expect(retryAfterMs({ headers: { "retry-after": "1.5" } }, now)).toBe(1500);
    expect(retryAfterMs({ headers: { "retry-after": new Date(Date.UTC(2026, 0, 1, 0, 0, 3)).toUTCString() } }, now)).toBe(3000);
    expect(retryAfterMs({ headers: { "retry-after": "soon" } }, now)).toBeUndefined();
    expect(retryAfterMs({}, now)).toBeUndefined();
  });
});

describe("cancellable", () => {
  it("passes a result or an error through when the signal did not abort", async () => {
    await expect(cancellable("openai", new AbortController().signal, async () => 7)).resolves.toBe(7);
    const failure = new YokeError("PROVIDER_UNAVAILABLE", "503");
    await expect(cancellable("openai", undefined, async () => Promise.reject(failure))).rejects.toBe(failure);
  });

  it("names an abort: the SDK's own error and a quiet end both become CANCELLED", async () => {
    const controller = new AbortController();
    controller.abort();
    const sdkError = new Error("Request was aborted.");
    const error = await cancellable("anthropic", controller.signal, async () => Promise.reject(sdkError)).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "CANCELLED", cause: sdkError, details: { provider: "anthropic" } });
    await expect(cancellable("anthropic", controller.signal, async () => "late")).rejects.toMatchObject({ code: "CANCELLED" });
    const answered = new YokeError("PROVIDER_STREAM_CUT", "ended early", { details: { requestId: "req_1" } });
    await expect(cancellable("anthropic", controller.signal, async () => Promise.reject(answered))).rejects.toMatchObject({
      code: "CANCELLED",
      details: { provider: "anthropic", requestId: "req_1" },
    });
    const typed = new YokeError("CANCELLED", "already typed");
    await expect(cancellable("anthropic", controller.signal, async () => Promise.reject(typed))).rejects.toBe(typed);
  });
});
