// Real MCP servers from npm over stdio: server-everything and server-filesystem, spawned from
// node_modules through the real SDK client. No mock anywhere.
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { YokeError } from "@yoke/protocol";
import type { ToolSourceV1 } from "@yoke/protocol";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { mcpStdioSource } from "./stdio.js";
import { callContext, everythingBin, filesystemBin } from "./__fixtures__/test-servers.js";

const open: ToolSourceV1[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((source) => source.close()));
});
function track<S extends ToolSourceV1>(source: S): S {
  open.push(source);
  return source;
}

describe("server-everything over stdio", () => {
  it("lists its tools with MCP annotations as hints, and calls echo", async () => {
    const source = track(mcpStdioSource({ command: process.execPath, args: [everythingBin], stderr: "ignore" }));
    await source.connect();
    await source.connect(); // idempotent
    const tools = await source.list();
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(["echo", "get-env", "get-sum", "get-tiny-image", "get-structured-content"]));
    const echo = tools.find((tool) => tool.name === "echo")!;
    expect(echo.description).toBe("Echoes back the input string");
    expect(echo.inputSchema).toMatchObject({ type: "object", properties: { message: { type: "string" } }, required: ["message"] });
    expect(echo.hints).toEqual({ title: "Echo Tool", readOnly: true, destructive: false, idempotent: true, openWorld: false });

    expect(await source.call("echo", { message: "hello" }, callContext())).toEqual({ content: "Echo: hello" });
    expect(await source.call("get-sum", { a: 2, b: 3 }, callContext())).toEqual({ content: "The sum of 2 and 3 is 5." });
  });

  it("turns structured content into output, and an image into a description of it", async () => {
    const source = track(mcpStdioSource({ command: process.execPath, args: [everythingBin], stderr: "ignore" }));
    await source.connect();
    const tools = await source.list();
    expect(tools.find((tool) => tool.name === "get-structured-content")!.outputSchema).toMatchObject({ type: "object" });

    const weather = await source.call("get-structured-content", { location: "New York" }, callContext());
    expect(weather).toMatchObject({ output: { temperature: expect.any(Number), conditions: expect.any(String), humidity: expect.any(Number) } });
    expect(JSON.parse((weather as { content: string }).content)).toEqual((weather as { output: unknown }).output);

    const image = (await source.call("get-tiny-image", {}, callContext())) as { content: string; output?: unknown };
    expect(image.output).toBeUndefined();
    expect(image.content).toMatch(/^\[image image\/png, \d+ bytes\]$/m);
    expect(image.content).not.toMatch(/iVBOR/); // the PNG's base64 never reaches the model
  });

  it("names a tool that does not exist as a refused call (TOOL_FAILED), not an uncertain one", async () => {
    const source = track(mcpStdioSource({ command: process.execPath, args: [everythingBin], stderr: "ignore" }));
    await source.connect();
    const error = await source.call("no-such-tool", {}, callContext()).catch((e: unknown) => e);
    expect(YokeError.hasCode(error, "TOOL_FAILED")).toBe(true);
  });

  it("has a canonical origin: the command line and the sorted names of the variables passed, never their values", () => {
    const source = mcpStdioSource({ command: "node", args: ["server.js", "--flag"], env: ["ZED", "ALPHA", "ZED"] });
    expect(source.origin).toEqual({ kind: "mcp-stdio", command: "node", args: ["server.js", "--flag"], env: ["ALPHA", "ZED"] });
    expect(() => mcpStdioSource({ command: "node", env: ["TOKEN=abc"] })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    expect(() => mcpStdioSource({ command: "" })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    // No args and no env: the origin says so (an origin is the server's identity in the registry).
    expect(mcpStdioSource({ command: "node" }).origin).toEqual({ kind: "mcp-stdio", command: "node", args: [], env: [] });
  });
});

describe("no token passthrough", () => {
  const planted = {
    OPENAI_API_KEY: "sk-planted-openai",
    ANTHROPIC_API_KEY: "sk-ant-planted",
    YOKE_HARNESS_SECRET: "planted-secret",
    YOKE_MCP_DECLARED: "declared-value",
  };
  const saved: Record<string, string | undefined> = {};
  beforeAll(() => {
    for (const [name, value] of Object.entries(planted)) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
  });
  afterAll(() => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it("a stdio server sees only the variables declared by name and the SDK's minimal default environment", async () => {
    const source = track(mcpStdioSource({ command: process.execPath, args: [everythingBin], env: ["YOKE_MCP_DECLARED", "YOKE_MCP_UNSET"], stderr: "ignore" }));
    await source.connect();
    const printed = (await source.call("get-env", {}, callContext())) as { content: string };
    const seen = JSON.parse(printed.content) as Record<string, string>;
    expect(seen.YOKE_MCP_DECLARED).toBe("declared-value");
    for (const name of ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "YOKE_HARNESS_SECRET", "YOKE_MCP_UNSET"]) expect(seen).not.toHaveProperty(name);
    expect(printed.content).not.toContain("sk-planted-openai");
    expect(printed.content).not.toContain("sk-ant-planted");
    // The SDK's getDefaultEnvironment on POSIX, and nothing else.
    const allowed = new Set(["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "YOKE_MCP_DECLARED"]);
    expect(Object.keys(seen).filter((name) => !allowed.has(name))).toEqual([]);
    expect(source.origin.env).toEqual(["YOKE_MCP_DECLARED", "YOKE_MCP_UNSET"]);
  });
});

describe("server-filesystem over stdio, on a temp directory", () => {
  let root: string;
  beforeAll(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), "yoke-mcp-fs-")));
    writeFileSync(join(root, "notes.md"), "# notes\nfirst line\n");
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("lists read and write tools with their hints, reads a file and writes one", async () => {
    const source = track(mcpStdioSource({ command: process.execPath, args: [filesystemBin, root], stderr: "ignore" }));
    await source.connect();
    const tools = await source.list();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get("read_text_file")?.hints).toMatchObject({ readOnly: true, openWorld: false });
    expect(byName.get("write_file")?.hints).toMatchObject({ readOnly: false, destructive: true, idempotent: true });
    expect(byName.get("edit_file")?.hints).toMatchObject({ readOnly: false, destructive: true, idempotent: false });

    const read = (await source.call("read_text_file", { path: join(root, "notes.md") }, callContext())) as { content: string };
    expect(read.content).toContain("first line");

    await source.call("write_file", { path: join(root, "out.txt"), content: "written by a tool" }, callContext());
    expect(readFileSync(join(root, "out.txt"), "utf8")).toBe("written by a tool");
  });

  it("a tool's own error result (a path outside the allowed directory) is TOOL_FAILED with the server's text", async () => {
    const source = track(mcpStdioSource({ command: process.execPath, args: [filesystemBin, root], stderr: "ignore" }));
    await source.connect();
    const error = await source.call("read_text_file", { path: "/etc/hostname" }, callContext()).catch((e: unknown) => e);
    expect(YokeError.hasCode(error, "TOOL_FAILED")).toBe(true);
    expect((error as Error).message).toMatch(/access denied|outside allowed/i);
  });
});
