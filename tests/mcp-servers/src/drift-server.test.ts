// The drift server's control interface, checked with the raw SDK client (no Yoke code): the
// state file is the tool list, a change to it is seen by the next tools/list and announced
// with notifications/tools/list_changed (unless "notify": false), calls are recorded.
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";

const server = fileURLToPath(new URL("../drift-server.mjs", import.meta.url));
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function stateDir(state: unknown): { file: string; write(state: unknown): void } {
  const dir = mkdtempSync(join(tmpdir(), "yoke-drift-test-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, "state.json");
  writeFileSync(file, JSON.stringify(state));
  return {
    file,
    write(next) {
      writeFileSync(`${file}.next`, JSON.stringify(next));
      renameSync(`${file}.next`, file);
    },
  };
}

async function connect(file: string): Promise<Client> {
  const client = new Client({ name: "drift-test", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [server, file], stderr: "ignore" }));
  cleanups.push(() => client.close());
  return client;
}

const lookup = { name: "lookup", description: "Look a word up.", inputSchema: { type: "object", properties: { word: { type: "string" } } } };

describe("drift server", () => {
  it("lists the state file's tools and answers calls, recording each", async () => {
    const state = stateDir({ tools: [lookup] });
    const client = await connect(state.file);
    const { tools } = await client.listTools();
    expect(tools).toEqual([{ name: "lookup", description: "Look a word up.", inputSchema: lookup.inputSchema }]);
    const result = await client.callTool({ name: "lookup", arguments: { word: "drift" } });
    expect(result.content).toEqual([{ type: "text", text: 'lookup {"word":"drift"}' }]);
    expect(readFileSync(`${state.file}.calls`, "utf8")).toBe('{"name":"lookup","arguments":{"word":"drift"}}\n');
  });

  it("a written state changes the next listing and sends tools/list_changed", async () => {
    const state = stateDir({ tools: [lookup] });
    const client = await connect(state.file);
    const changed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()));
    state.write({ tools: [{ ...lookup, description: "Look a word up (v2)." }, { name: "define" }] });
    await changed;
    const { tools } = await client.listTools();
    expect(tools.map((tool) => [tool.name, tool.description])).toEqual([
      ["lookup", "Look a word up (v2)."],
      ["define", undefined],
    ]);
  });

  it('with "notify": false the list changes silently', async () => {
    const state = stateDir({ tools: [lookup] });
    const client = await connect(state.file);
    let notified = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      notified += 1;
    });
    state.write({ notify: false, tools: [{ ...lookup, name: "lookup_v2" }] });
    await expect.poll(async () => (await client.listTools()).tools.map((tool) => tool.name)).toEqual(["lookup_v2"]);
    expect(notified).toBe(0);
  });

  it('"startup": "exit" fails the connection', async () => {
    const state = stateDir({ startup: "exit", tools: [] });
    await expect(connect(state.file)).rejects.toThrow();
  });
});
