import { afterEach, describe, expect, it } from "vitest";
import type { YokeError } from "@yoke/protocol";
import { ask, fixture, rejection, replay, type Replay } from "./__fixtures__/test-support.js";

let current: Replay | undefined;
afterEach(async () => {
  await current?.server.close();
  current = undefined;
});

// A stream fixture is a 200 body: its request-id header is given here; a status fixture has its own.
async function failure(file: string, requestId?: string): Promise<YokeError> {
  await current?.server.close();
  current = await replay([fixture(`errors/${file}`, requestId === undefined ? {} : { headers: { "request-id": requestId } })]);
  return rejection(current.provider.generate(ask("hi")));
}

const outcome = (error: YokeError) => ({
  code: error.code,
  retryable: error.retryable,
  kind: error.details.kind,
  type: error.details.type,
  requestId: error.details.requestId,
});

// Every error type of the API reference, with the status it is answered with.
const CASES = [
  { type: "invalid_request_error", status: 400, code: "PROVIDER_REQUEST_INVALID", retryable: false, kind: "invalid_request" },
  { type: "authentication_error", status: 401, code: "PROVIDER_REQUEST_INVALID", retryable: false, kind: "authentication" },
  { type: "billing_error", status: 402, code: "PROVIDER_REQUEST_INVALID", retryable: false, kind: "billing" },
  { type: "permission_error", status: 403, code: "PROVIDER_REQUEST_INVALID", retryable: false, kind: "permission" },
  { type: "not_found_error", status: 404, code: "PROVIDER_REQUEST_INVALID", retryable: false, kind: "not_found" },
  { type: "request_too_large", status: 413, code: "PROVIDER_REQUEST_INVALID", retryable: false, kind: "request_too_large" },
  { type: "rate_limit_error", status: 429, code: "PROVIDER_RATE_LIMITED", retryable: true, kind: "rate_limit" },
  { type: "api_error", status: 500, code: "PROVIDER_UNAVAILABLE", retryable: true, kind: "server" },
  { type: "timeout_error", status: 504, code: "PROVIDER_UNAVAILABLE", retryable: true, kind: "timeout" },
  { type: "overloaded_error", status: 529, code: "PROVIDER_UNAVAILABLE", retryable: true, kind: "overloaded" },
] as const;

describe("one classification for an Anthropic error, however it arrives", () => {
  for (const entry of CASES) {
    it(`${entry.type}: the same code and retryability as HTTP ${entry.status} and as an error event inside a 200 stream, with the request id`, async () => {
      const name = entry.type.replaceAll("_", "-");
      const expected = { code: entry.code, retryable: entry.retryable, kind: entry.kind, type: entry.type };
      const status = await failure(`${name}.json`);
      expect(outcome(status)).toEqual({ ...expected, requestId: expect.stringMatching(/^req_011C/) });
      expect(status.details.status).toBe(entry.status);
      const event = await failure(`${name}.event.sse`, "req_011CStream");
      expect(outcome(event)).toEqual({ ...expected, requestId: "req_011CStream" });
    });
  }
});

describe("a prompt past the context window", () => {
  it('is a context-length error, not a plain invalid request: "prompt is too long" as HTTP 400 and as an error event', async () => {
    const expected = { code: "PROVIDER_REQUEST_INVALID", retryable: false, kind: "context_length", type: "invalid_request_error" };
    const status = await failure("prompt-too-long.json");
    expect(outcome(status)).toEqual({ ...expected, requestId: "req_011CPromptTooLong" });
    expect(status.message).toContain("prompt is too long");
    const event = await failure("prompt-too-long.event.sse", "req_011CStream");
    expect(outcome(event)).toEqual({ ...expected, requestId: "req_011CStream" });
  });
});
