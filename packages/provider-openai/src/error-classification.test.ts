import { afterEach, describe, expect, it } from "vitest";
import type { YokeError } from "@yoke/protocol";
import { ask, fixture, rejection, replay, type Replay } from "./__fixtures__/test-support.js";

let current: Replay | undefined;
afterEach(async () => {
  await current?.server.close();
  current = undefined;
});

// A stream fixture is a 200 body: its x-request-id header is given here; a status fixture has its own.
async function failure(file: string, options: Parameters<typeof replay>[1], requestId?: string): Promise<YokeError> {
  await current?.server.close();
  current = await replay([fixture(`errors/${file}`, requestId === undefined ? {} : { headers: { "x-request-id": requestId } })], options);
  return rejection(current.provider.generate(ask("hi")));
}

const outcome = (error: YokeError) => ({ code: error.code, retryable: error.retryable, kind: error.details.kind, requestId: error.details.requestId });

// Each documented error, as the HTTP status it is answered with and as the in-stream event a 200 stream carries.
const CASES = [
  { name: "insufficient-quota", code: "PROVIDER_RATE_LIMITED", retryable: false, kind: "quota", responsesEvent: true },
  { name: "rate-limit-exceeded", code: "PROVIDER_RATE_LIMITED", retryable: true, kind: "rate_limit", responsesEvent: true },
  { name: "context-length-exceeded", code: "PROVIDER_REQUEST_INVALID", retryable: false, kind: "context_length", responsesEvent: true },
  // A bad parameter is answered 400 before any stream starts; Chat still shows its in-stream form.
  { name: "invalid-request", code: "PROVIDER_REQUEST_INVALID", retryable: false, kind: "invalid_request", responsesEvent: false },
  { name: "invalid-api-key", code: "PROVIDER_REQUEST_INVALID", retryable: false, kind: "authentication", responsesEvent: true },
  { name: "permission", code: "PROVIDER_REQUEST_INVALID", retryable: false, kind: "permission", responsesEvent: true },
  { name: "server-error", code: "PROVIDER_UNAVAILABLE", retryable: true, kind: "server", responsesEvent: true },
] as const;

describe("one classification for an OpenAI error, however it arrives", () => {
  for (const entry of CASES) {
    it(`${entry.name}: the same code and retryability as an HTTP status and inside a 200 stream, with the request id`, async () => {
      const expected = { code: entry.code, retryable: entry.retryable, kind: entry.kind };
      const status = await failure(`${entry.name}.json`, {});
      expect(outcome(status)).toEqual({ ...expected, requestId: `req_${entry.name.replaceAll("-", "_")}` });
      const chatStatus = await failure(`${entry.name}.json`, { api: "chat", model: "gpt-4.1-mini" });
      expect(outcome(chatStatus)).toEqual({ ...expected, requestId: `req_${entry.name.replaceAll("-", "_")}` });
      const chatEvent = await failure(`${entry.name}.chat-event.sse`, { api: "chat", model: "gpt-4.1-mini" }, "req_chat_stream");
      expect(outcome(chatEvent)).toEqual({ ...expected, requestId: "req_chat_stream" });
      if (entry.responsesEvent) {
        const event = await failure(`${entry.name}.responses-event.sse`, {}, "req_responses_stream");
        expect(outcome(event)).toEqual({ ...expected, requestId: "req_responses_stream" });
      }
    });
  }

  it("classifies response.failed by the same table, and keeps the request id of its 200", async () => {
    const results: unknown[] = [];
    for (const name of ["server-error", "rate-limit-exceeded", "invalid-prompt", "invalid-image"]) {
      const error = await failure(`${name}.response-failed.sse`, {}, `req_failed_${name}`);
      results.push({ ...outcome(error), type: error.details.type });
    }
    expect(results).toEqual([
      { code: "PROVIDER_UNAVAILABLE", retryable: true, kind: "server", requestId: "req_failed_server-error", type: "server_error" },
      { code: "PROVIDER_RATE_LIMITED", retryable: true, kind: "rate_limit", requestId: "req_failed_rate-limit-exceeded", type: "rate_limit_exceeded" },
      { code: "PROVIDER_REQUEST_INVALID", retryable: false, kind: "invalid_request", requestId: "req_failed_invalid-prompt", type: "invalid_prompt" },
      { code: "PROVIDER_REQUEST_INVALID", retryable: false, kind: "invalid_request", requestId: "req_failed_invalid-image", type: "invalid_image_url" },
    ]);
  });
});
