// Every way a server can fail a source, against the project's drift server (a real process
// speaking MCP through the SDK): each gives the typed error ToolSourceV1 promises, and a call
// whose request reached the server is never reported as "not run".
import { YokeError } from "@yoke/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { mcpStdioSource } from "./stdio.js";
import { callContext, type DriftState, driftServer } from "./__fixtures__/test-servers.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function connected(state: DriftState) {
  const server = driftServer(state);
  cleanups.push(() => server.remove());
  const source = mcpStdioSource({ command: server.command, args: server.args, stderr: "ignore" });
  cleanups.push(() => source.close());
  await source.connect();
  return { server, source };
}

async function rejection(promise: Promise<unknown>): Promise<YokeError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!YokeError.isInstance(error)) throw new Error(`expected a YokeError, got ${String(error)}`);
  return error;
}

const ok = { name: "ok" };

describe("a server that cannot start", () => {
  it("a command that does not exist fails connect with TOOL_SOURCE_UNAVAILABLE", async () => {
    const source = mcpStdioSource({ command: "/nonexistent/yoke-mcp-server", stderr: "ignore" });
    const error = await rejection(source.connect());
    expect(error.code).toBe("TOOL_SOURCE_UNAVAILABLE");
    expect(error.retryable).toBe(true);
    await source.close();
  });

  it("a server that exits before initializing fails connect with TOOL_SOURCE_UNAVAILABLE", async () => {
    const server = driftServer({ startup: "exit", tools: [] });
    cleanups.push(() => server.remove());
    const source = mcpStdioSource({ command: server.command, args: server.args, stderr: "ignore" });
    expect((await rejection(source.connect())).code).toBe("TOOL_SOURCE_UNAVAILABLE");
    await source.close();
  });

  it("a server that never answers initialize fails connect with TOOL_SOURCE_UNAVAILABLE at the startup deadline", async () => {
    const server = driftServer({ startup: "silent", tools: [] });
    cleanups.push(() => server.remove());
    const source = mcpStdioSource({ command: server.command, args: server.args, stderr: "ignore", startupTimeoutMs: 1_500 });
    expect((await rejection(source.connect())).code).toBe("TOOL_SOURCE_UNAVAILABLE");
    await source.close();
  });

  it("calling or listing before connect is TOOL_SOURCE_UNAVAILABLE, and nothing is sent", async () => {
    const server = driftServer({ tools: [ok] });
    cleanups.push(() => server.remove());
    const source = mcpStdioSource({ command: server.command, args: server.args, stderr: "ignore" });
    expect((await rejection(source.call("ok", {}, callContext()))).code).toBe("TOOL_SOURCE_UNAVAILABLE");
    expect((await rejection(source.list())).code).toBe("TOOL_SOURCE_UNAVAILABLE");
    expect(server.calls()).toEqual([]);
  });
});

describe("a call whose effect may have happened is TOOL_OUTCOME_UNKNOWN", () => {
  it("the server dies mid-call; the next call is TOOL_SOURCE_UNAVAILABLE until connect() starts it again", async () => {
    const { server, source } = await connected({ tools: [{ name: "crash", fault: "die" }, ok] });
    const error = await rejection(source.call("crash", { n: 1 }, callContext()));
    expect(error.code).toBe("TOOL_OUTCOME_UNKNOWN");
    expect(server.calls()).toEqual([{ name: "crash", arguments: { n: 1 } }]); // it did reach the server
    expect((await rejection(source.call("ok", {}, callContext()))).code).toBe("TOOL_SOURCE_UNAVAILABLE");
    expect(server.calls()).toHaveLength(1); // and that one was never sent
    await source.connect();
    expect(await source.call("ok", {}, callContext())).toEqual({ content: "ok {}" });
  });

  it("the server hangs: the call's signal (its deadline) settles it, and the connection stays good for other calls", async () => {
    const { server, source } = await connected({ tools: [{ name: "stall", fault: "hang" }, ok] });
    const deadline = new AbortController();
    const call = source.call("stall", {}, callContext({ signal: deadline.signal }));
    await expect.poll(() => server.calls().length).toBe(1);
    deadline.abort(new YokeError("TOOL_TIMEOUT", "deadline of stall passed"));
    const error = await rejection(call);
    expect(error.code).toBe("TOOL_OUTCOME_UNKNOWN");
    expect(error.message).toMatch(/timed out/);
    // The connection is still good for other calls.
    expect(await source.call("ok", {}, callContext())).toEqual({ content: "ok {}" });
  });

  it("the server answers with something that is not a tool result", async () => {
    const { source } = await connected({ tools: [{ name: "bad", fault: "malformed" }] });
    expect((await rejection(source.call("bad", {}, callContext({ timeoutMs: 10_000 })))).code).toBe("TOOL_OUTCOME_UNKNOWN");
  });

  it("the server answers a request id nobody sent: the call in flight is settled at once and the connection dropped", async () => {
    const { source } = await connected({ tools: [{ name: "stray", fault: "unknown-id" }, ok] });
    const error = await rejection(source.call("stray", {}, callContext({ timeoutMs: 20_000 })));
    expect(error.code).toBe("TOOL_OUTCOME_UNKNOWN");
    expect(error.message).toMatch(/unknown request id/);
    expect((await rejection(source.call("ok", {}, callContext()))).code).toBe("TOOL_SOURCE_UNAVAILABLE");
  });

  it("the server writes a line that is not JSON while a call is in flight", async () => {
    const { source } = await connected({ tools: [{ name: "noise", fault: "garbage" }] });
    const error = await rejection(source.call("noise", {}, callContext({ timeoutMs: 20_000 })));
    expect(error.code).toBe("TOOL_OUTCOME_UNKNOWN");
    expect(error.message).toMatch(/not JSON/);
  });

  it("a cancelled run's signal (not a deadline) is named as a cancellation", async () => {
    const { server, source } = await connected({ tools: [{ name: "stall", fault: "hang" }] });
    const run = new AbortController();
    const call = source.call("stall", {}, callContext({ signal: run.signal }));
    await expect.poll(() => server.calls().length).toBe(1);
    run.abort();
    const error = await rejection(call);
    expect(error.code).toBe("TOOL_OUTCOME_UNKNOWN");
    expect(error.message).toMatch(/cancelled/);
  });
});

describe("answers that are definite", () => {
  it("a tool's own isError result is TOOL_FAILED with its text", async () => {
    const { source } = await connected({ tools: [{ name: "refuse", fault: "error" }] });
    const error = await rejection(source.call("refuse", {}, callContext()));
    expect(error.code).toBe("TOOL_FAILED");
    expect(error.message).toBe("refuse failed");
  });

  it("an unknown tool is refused by the server (invalid params): TOOL_FAILED, nothing ran", async () => {
    const { server, source } = await connected({ tools: [ok] });
    const error = await rejection(source.call("missing", {}, callContext()));
    expect(error.code).toBe("TOOL_FAILED");
    expect(error.details.rpcCode).toBe(-32602);
    expect(server.calls()).toEqual([]);
  });

  it("arguments that are not a JSON object are refused before anything is sent", async () => {
    const { server, source } = await connected({ tools: [ok] });
    expect((await rejection(source.call("ok", [1, 2], callContext()))).code).toBe("TOOL_INPUT_INVALID");
    expect(server.calls()).toEqual([]);
  });

  it("a signal aborted before the call is sent rejects with its reason and sends nothing", async () => {
    const { server, source } = await connected({ tools: [ok] });
    const deadline = new AbortController();
    deadline.abort(new YokeError("TOOL_TIMEOUT", "deadline of ok passed"));
    expect((await rejection(source.call("ok", {}, callContext({ signal: deadline.signal })))).code).toBe("TOOL_TIMEOUT");
    expect(server.calls()).toEqual([]);
  });
});

describe("malformed listings are TOOL_SOURCE_INVALID", () => {
  it("a tool without an input schema", async () => {
    const { source } = await connected({ list: "malformed", tools: [] });
    expect((await rejection(source.list())).code).toBe("TOOL_SOURCE_INVALID");
  });

  it("a tool name listed twice", async () => {
    const { source } = await connected({ tools: [ok, ok] });
    const error = await rejection(source.list());
    expect(error.code).toBe("TOOL_SOURCE_INVALID");
    expect(error.message).toMatch(/twice/);
  });
});

describe("paging", () => {
  it("list() follows nextCursor through every page", async () => {
    const { source } = await connected({ pageSize: 2, tools: ["a", "b", "c", "d", "e"].map((name) => ({ name })) });
    expect((await source.list()).map((tool) => tool.name)).toEqual(["a", "b", "c", "d", "e"]);
  });

  it("a cursor the server already gave is TOOL_SOURCE_INVALID, not an endless listing", async () => {
    const { source } = await connected({ list: "cursor-loop", tools: [ok] });
    const error = await rejection(source.list());
    expect(error.code).toBe("TOOL_SOURCE_INVALID");
    expect(error.message).toMatch(/repeated the tools\/list cursor/);
  });
});

describe("the server's stderr", () => {
  it("goes to a function when one is given (the server's text, never parsed)", async () => {
    const server = driftServer({ tools: [ok] });
    cleanups.push(() => server.remove());
    let text = "";
    const source = mcpStdioSource({
      command: process.execPath,
      args: [server.args[0]!, `${server.stateFile}.missing`],
      stderr: (chunk) => {
        text += chunk;
      },
    });
    cleanups.push(() => source.close());
    expect((await rejection(source.connect())).code).toBe("TOOL_SOURCE_UNAVAILABLE");
    await expect.poll(() => text).toMatch(/ENOENT/);
  });
});

describe("list_changed and re-listing (drift as a source sees it)", () => {
  const lookup = { name: "lookup", description: "Look a word up.", inputSchema: { type: "object", properties: { word: { type: "string" } } } };

  it("a changed description, schema, rename, add and remove reach onListChanged listeners and the next list()", async () => {
    const { server, source } = await connected({ tools: [lookup, ok] });
    expect((await source.list()).map((tool) => tool.name)).toEqual(["lookup", "ok"]);
    let heard = 0;
    const unsubscribe = source.onListChanged(() => {
      heard += 1;
    });

    server.write({ tools: [{ ...lookup, description: "Look a word up, and delete it." }, ok] });
    await expect.poll(() => heard).toBe(1);
    expect((await source.list())[0]!.description).toBe("Look a word up, and delete it.");

    server.write({ tools: [{ ...lookup, inputSchema: { type: "object", properties: { word: { type: "string" }, purge: { type: "boolean" } } } }, ok] });
    await expect.poll(() => heard).toBe(2);
    expect((await source.list())[0]!.inputSchema).toMatchObject({ properties: { purge: { type: "boolean" } } });

    server.write({ tools: [{ ...lookup, name: "find" }, ok, { name: "added" }] });
    await expect.poll(() => heard).toBe(3);
    expect((await source.list()).map((tool) => tool.name)).toEqual(["find", "ok", "added"]);

    server.write({ tools: [ok] });
    await expect.poll(() => heard).toBe(4);
    expect((await source.list()).map((tool) => tool.name)).toEqual(["ok"]);

    unsubscribe();
    server.write({ tools: [ok, { name: "later" }] });
    await expect.poll(async () => (await source.list()).length).toBe(2);
    expect(heard).toBe(4);
  });
});
