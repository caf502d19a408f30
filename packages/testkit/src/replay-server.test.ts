import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { YokeError } from "@yoke/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { createReplayServer, encodeSse, readReplayFixture, type ReplayServer } from "./replay.js";

let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const post = (url: string, body: unknown, signal?: AbortSignal) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), ...(signal ? { signal } : {}) });

describe("createReplayServer", () => {
  it("serves exchanges in order on 127.0.0.1 and records each request", async () => {
    server = await createReplayServer([{ body: { ok: 1 } }, { status: 429, headers: { "retry-after": "2" }, body: { error: "slow" } }]);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const first = await post(`${server.url}/v1/a?x=1`, { n: 1 });
    expect([first.status, await first.json()]).toEqual([200, { ok: 1 }]);
    const second = await post(`${server.url}/v1/b`, { n: 2 });
    expect([second.status, second.headers.get("retry-after")]).toEqual([429, "2"]);
    await second.text();
    expect(server.requests.map((request) => [request.method, request.path, request.body])).toEqual([
      ["POST", "/v1/a?x=1", { n: 1 }],
      ["POST", "/v1/b", { n: 2 }],
    ]);
    server.assertConsumed();
  });

  it("answers 599 when no exchange is left or the path does not match, and still counts the request", async () => {
    server = await createReplayServer([{ path: "/v1/messages", body: {} }]);
    const wrong = await post(`${server.url}/v1/responses`, {});
    expect(wrong.status).toBe(599);
    expect(((await wrong.json()) as { error: { message: string } }).error.message).toBe("expected a request to /v1/messages");
    const none = await post(`${server.url}/v1/messages`, {});
    expect(none.status).toBe(599);
    await none.text();
    expect(server.requests).toHaveLength(2);
  });

  it("streams server-sent events verbatim or encoded", async () => {
    const events = [{ event: "message_stop", data: { type: "message_stop" } }, { data: "[DONE]" }];
    expect(encodeSse(events)).toBe('event: message_stop\ndata: {"type":"message_stop"}\n\ndata: [DONE]\n\n');
    server = await createReplayServer([{ sse: events }]);
    const response = await post(server.url, {});
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(await response.text()).toBe(encodeSse(events));
  });

  it("cuts the connection mid-stream when asked (cut: true destroys the socket after the stream)", async () => {
    server = await createReplayServer([{ sse: "data: {}\n\n", cut: true }]);
    const response = await post(server.url, {});
    await expect(response.text()).rejects.toThrow();
  });

  it("holds a response open until the client aborts, and records the abort", async () => {
    server = await createReplayServer([{ sse: "data: {}\n\n", hang: true }]);
    const controller = new AbortController();
    const response = await post(server.url, {}, controller.signal);
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    await expect(reader.read()).rejects.toThrow();
    await expect.poll(() => server!.requests[0]!.clientAborted).toBe(true);
  });

  it("waits for a request by count", async () => {
    server = await createReplayServer([{ body: {} }, { body: {} }]);
    const second = server.waitForRequest(2);
    await (await post(server.url, { n: 1 })).text();
    await (await post(server.url, { n: 2 })).text();
    expect((await second).body).toEqual({ n: 2 });
  });

  it("names unserved exchanges with PROVIDER_UNCONSUMED_STEPS", async () => {
    server = await createReplayServer([{ body: {} }]);
    let caught: unknown;
    try {
      server.assertConsumed();
    } catch (error) {
      caught = error;
    }
    expect(YokeError.hasCode(caught, "PROVIDER_UNCONSUMED_STEPS")).toBe(true);
  });
});

describe("readReplayFixture", () => {
  const dir = mkdtempSync(join(tmpdir(), "yoke-replay-"));
  it("reads .sse streams and .json exchanges, with overrides", () => {
    writeFileSync(join(dir, "text.sse"), "data: {}\n\n");
    writeFileSync(join(dir, "error.json"), JSON.stringify({ status: 503, body: { error: "down" } }));
    writeFileSync(join(dir, "notes.txt"), "");
    expect(readReplayFixture(dir, "text.sse", { cut: true })).toEqual({ sse: new TextEncoder().encode("data: {}\n\n"), cut: true });
    expect(readReplayFixture(dir, "error.json")).toEqual({ status: 503, body: { error: "down" }, rawBody: new TextEncoder().encode('{"error":"down"}') });
    expect(() => readReplayFixture(dir, "notes.txt")).toThrow(YokeError);
    rmSync(dir, { recursive: true, force: true });
  });
});
