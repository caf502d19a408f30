// server-everything in its Streamable HTTP mode on 127.0.0.1 (started from node_modules on a
// free port), through the real SDK client.
import { createServer, request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { YokeError } from "@yoke/protocol";
import type { ToolSourceV1 } from "@yoke/protocol";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { mcpHttpSource } from "./http.js";
import { callContext, startEverythingHttp } from "./__fixtures__/test-servers.js";

const open: ToolSourceV1[] = [];

/**
 * A relay on 127.0.0.1 in front of `target`: forwards each request, and resolves `inFlight`
 * once the server has answered (with headers) a request whose body names `marker`. `close`
 * stops listening and cuts every connection, so the next request is refused (no socket is kept alive).
 */
async function relayTo(target: URL, marker: string): Promise<{ url: string; inFlight: Promise<void>; close(): Promise<void> }> {
  let seen!: () => void;
  const inFlight = new Promise<void>((resolve) => {
    seen = resolve;
  });
  const relay = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks);
      const upstream = httpRequest(
        { host: target.hostname, port: target.port, path: request.url, method: request.method, headers: { ...request.headers, host: target.host } },
        (answer) => {
          // No kept-alive sockets: after `close`, every request opens a connection and is refused,
          // never written into a pooled socket the relay already cut.
          response.writeHead(answer.statusCode ?? 502, { ...answer.headers, connection: "close" });
          answer.pipe(response);
          answer.on("close", () => response.destroy());
          if (body.includes(marker)) seen();
        },
      );
      upstream.on("error", () => response.destroy());
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
  const { port } = relay.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}${target.pathname}`,
    inFlight,
    close: () =>
      new Promise<void>((resolve) => {
        if (!relay.listening) return resolve();
        relay.close(() => resolve());
        relay.closeAllConnections();
      }),
  };
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((source) => source.close()));
});

describe("server-everything over Streamable HTTP", () => {
  let server: Awaited<ReturnType<typeof startEverythingHttp>>;
  beforeAll(async () => {
    server = await startEverythingHttp();
  });
  afterAll(() => server.stop());

  it("lists, maps hints and calls echo and get-sum", async () => {
    const source = mcpHttpSource({ url: server.url });
    open.push(source);
    await source.connect();
    const tools = await source.list();
    const echo = tools.find((tool) => tool.name === "echo")!;
    expect(echo.hints).toEqual({ title: "Echo Tool", readOnly: true, destructive: false, idempotent: true, openWorld: false });
    expect(await source.call("echo", { message: "over http" }, callContext())).toEqual({ content: "Echo: over http" });
    expect(await source.call("get-sum", { a: 40, b: 2 }, callContext())).toEqual({ content: "The sum of 40 and 2 is 42." });
    expect(source.origin).toEqual({ kind: "mcp-http", url: server.url });
  });

  it("two sources are two sessions; closing one leaves the other working", async () => {
    const a = mcpHttpSource({ url: server.url });
    const b = mcpHttpSource({ url: server.url });
    open.push(a, b);
    await Promise.all([a.connect(), b.connect()]);
    await a.close();
    expect(await b.call("echo", { message: "still here" }, callContext())).toEqual({ content: "Echo: still here" });
    expect((await a.call("echo", { message: "x" }, callContext()).catch((e: unknown) => e)) as YokeError).toMatchObject({ code: "TOOL_SOURCE_UNAVAILABLE" });
  });
});

describe("an HTTP server that goes away", () => {
  it("dies mid-call: no answer by the deadline is TOOL_OUTCOME_UNKNOWN; after that, a refused connection is TOOL_SOURCE_UNAVAILABLE", async () => {
    const server = await startEverythingHttp();
    // Ordered by what the wire shows, not by sleeps: the call is in flight once the server has
    // answered its POST (the result stream is open); only then does the server die, and only
    // after that does the deadline pass.
    const relay = await relayTo(new URL(server.url), "trigger-long-running-operation");
    const source = mcpHttpSource({ url: relay.url });
    open.push(source);
    try {
      await source.connect();
      const deadline = new AbortController();
      const call = source.call("trigger-long-running-operation", { duration: 30, steps: 30 }, callContext({ signal: deadline.signal }));
      await relay.inFlight;
      await server.stop();
      await relay.close();
      deadline.abort(new YokeError("TOOL_TIMEOUT", "deadline passed"));
      const error = await call.catch((e: unknown) => e);
      expect(YokeError.hasCode(error, "TOOL_OUTCOME_UNKNOWN")).toBe(true);
      const next = await source.call("echo", { message: "anyone?" }, callContext()).catch((e: unknown) => e);
      expect(YokeError.hasCode(next, "TOOL_SOURCE_UNAVAILABLE")).toBe(true);
      expect((next as YokeError).retryable).toBe(true);
    } finally {
      await relay.close();
      await server.stop();
    }
  });

  it("nothing listening: connect is TOOL_SOURCE_UNAVAILABLE", async () => {
    const server = await startEverythingHttp();
    await server.stop();
    const source = mcpHttpSource({ url: server.url });
    open.push(source);
    const error = await source.connect().catch((e: unknown) => e);
    expect(YokeError.hasCode(error, "TOOL_SOURCE_UNAVAILABLE")).toBe(true);
  });
});

describe("the HTTP origin and headers", () => {
  it("is the canonical URL: no fragment, no credentials, never the headers", () => {
    expect(mcpHttpSource({ url: "HTTP://LOCALHOST:3001/mcp#part", headers: { authorization: "Bearer secret" } }).origin).toEqual({
      kind: "mcp-http",
      url: "http://localhost:3001/mcp",
    });
    expect(() => mcpHttpSource({ url: "http://user:pass@localhost:3001/mcp" })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    expect(() => mcpHttpSource({ url: "ftp://localhost/mcp" })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    expect(() => mcpHttpSource({ url: "not a url" })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
  });

  it("sends the headers given and nothing of the harness's credentials", async () => {
    const saved = process.env.OPENAI_API_KEY;
    process.env.OPENAI_API_KEY = "sk-planted-openai";
    const seen: IncomingHttpHeaders[] = [];
    const http = createServer((request, response) => {
      seen.push(request.headers);
      response.writeHead(500).end();
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    try {
      const port = (http.address() as { port: number }).port;
      const source = mcpHttpSource({ url: `http://127.0.0.1:${port}/mcp`, headers: { "x-api-key": "given-by-the-app" } });
      open.push(source);
      const error = await source.connect().catch((e: unknown) => e);
      expect(YokeError.hasCode(error, "TOOL_SOURCE_UNAVAILABLE")).toBe(true);
      expect(seen.length).toBeGreaterThan(0);
      expect(seen[0]!["x-api-key"]).toBe("given-by-the-app");
      expect(seen[0]!.authorization).toBeUndefined();
      expect(JSON.stringify(seen)).not.toContain("sk-planted-openai");
    } finally {
      if (saved === undefined) delete process.env.OPENAI_API_KEY;
      else process.env.OPENAI_API_KEY = saved;
      await new Promise((resolve) => http.close(resolve));
    }
  });
});
