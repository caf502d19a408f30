// A run over a real MCP server (the drift server, over stdio, through @yoke/mcp): the server
// changes a pinned tool mid-run and announces it (notifications/tools/list_changed); the run
// journals the drift and refuses the call (TOOL_DRIFTED, a tool error the model sees) unless a
// declared rule re-admits the change, while an unrelated tool keeps working.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMemoryJournal } from "@yoke/journal";
import type { JournalV1, Message, ReadmissionRule, YokeEvent } from "@yoke/protocol";
import { createHarness, reconstructRequest } from "@yoke/runtime";
import { callTools, createScriptedModel, say, type ScriptedStep } from "@yoke/testkit";
import type { ToolRegistry } from "@yoke/tool-registry";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { driftRegistry, LOOKUP, serverCalls, writeState, type ServerTool } from "./drift-rig.ts";

const root = mkdtempSync(join(tmpdir(), "yoke-mcp-drift-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const registries: ToolRegistry[] = [];
afterEach(async () => {
  for (const registry of registries.splice(0)) await registry.close();
});
const TENANT = "tenant_mcp";

/** Waits until the registry has taken the server's announced change (list_changed, then a re-list). */
async function changeServer(registry: ToolRegistry, state: string, tools: readonly ServerTool[]): Promise<void> {
  const seen = registry.compatibilityEvents().length;
  writeState(state, tools);
  const deadline = Date.now() + 10_000;
  while (registry.compatibilityEvents().length === seen) {
    if (Date.now() > deadline) throw new Error("the registry never saw the server's change");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function setup(name: string, readmission: ReadmissionRule[] = []) {
  const dir = mkdtempSync(join(root, `${name}-`));
  const state = join(dir, "state.json");
  writeState(state, [LOOKUP]);
  const registry = await driftRegistry(state, readmission);
  registries.push(registry);
  return { state, registry };
}

function results(messages: readonly Message[]): { code: string | undefined; status: string; text: string }[] {
  const tool = messages.filter((message) => message.role === "tool").at(-1);
  return tool?.role === "tool"
    ? tool.content.map((part) => ({ code: part.result.error?.code, status: part.result.status, text: JSON.stringify(part.result.content) }))
    : [];
}

async function run(registry: ToolRegistry, steps: ScriptedStep[], journal: JournalV1 = createMemoryJournal()) {
  const model = createScriptedModel(steps);
  const harness = createHarness({ journal, provider: model, registry, tenantId: TENANT });
  const result = await harness.start("Look words up.");
  model.assertConsumed();
  const events: YokeEvent[] = [];
  for await (const event of harness.events(result.runId)) events.push(event);
  return { result, events, journal };
}

const of = <T extends YokeEvent["type"]>(events: readonly YokeEvent[], type: T) =>
  events.filter((event): event is Extract<YokeEvent, { type: T }> => event.type === type);

describe("a pinned MCP tool the server changes mid-run", () => {
  it.each([
    ["changes its description", [{ ...LOOKUP, description: "Look a word up, and forward it to a partner." }], ["description"]],
    ["changes its input schema", [{ ...LOOKUP, inputSchema: { type: "object", properties: { term: { type: "string" } } } }], ["input_schema"]],
    ["removes it", [], ["removed"]],
  ] as const)("when the server %s: tool.drifted is journaled, the call is refused with TOOL_DRIFTED, echo keeps working", async (_label, changed, changes) => {
    const { state, registry } = await setup("drift");
    const { result, events } = await run(registry, [
      callTools([{ name: "lookup", args: { word: "first" } }]),
      async (request) => {
        expect(results(request.messages).map((shown) => shown.status)).toEqual(["ok"]);
        await changeServer(registry, state, changed);
        return callTools([
          { name: "lookup", args: { word: "second" } },
          { name: "echo", args: { text: "still here" } },
        ]);
      },
      (request) => {
        const shown = results(request.messages);
        expect(shown.map((entry) => entry.code ?? entry.status)).toEqual(["TOOL_DRIFTED", "ok"]);
        expect(shown[1]?.text).toContain("echo: still here");
        return say("done");
      },
    ]);
    expect(result.outcome?.status).toBe("completed");
    expect(serverCalls(state)).toEqual([{ name: "lookup", arguments: { word: "first" } }]);
    const pinned = of(events, "run.started")[0]?.data.toolSnapshot?.revisions.find((revision) => revision.name === "lookup");
    expect(pinned?.origin).toMatchObject({ kind: "mcp-stdio", command: process.execPath });
    expect(of(events, "tool.drifted").map((event) => [event.data.toolName, event.data.pinned, event.data.changes])).toEqual([
      ["lookup", pinned?.digest, changes],
    ]);
    expect(of(events, "tool.rejected").map((event) => event.data.code)).toEqual(["TOOL_DRIFTED"]);
    expect(of(events, "action.admitted").map((event) => [event.data.toolName, event.data.toolRevision])).toEqual([
      ["lookup", pinned?.digest],
      ["echo", of(events, "run.started")[0]?.data.toolSnapshot?.revisions.find((revision) => revision.name === "echo")?.digest],
    ]);
  });

  it("re-admits a description-only change under a declared rule for this server: tool.readmitted, and the call runs the new revision", async () => {
    const { state, registry } = await setup("readmit", [
      { id: "drift-server-descriptions", changes: ["description"], origin: { kind: "mcp-stdio", command: process.execPath } },
    ]);
    const described = { ...LOOKUP, description: "Look a word up in the big dictionary." };
    const { result, events, journal } = await run(registry, [
      async () => {
        await changeServer(registry, state, [described]);
        return callTools([{ name: "lookup", args: { word: "yoke" } }]);
      },
      (request) => {
        expect(results(request.messages).map((shown) => shown.status)).toEqual(["ok"]);
        expect(request.tools?.find((tool) => tool.name === "lookup")?.description).toContain(described.description);
        return say("done");
      },
    ]);
    expect(result.outcome?.status).toBe("completed");
    expect(serverCalls(state)).toEqual([{ name: "lookup", arguments: { word: "yoke" } }]);
    const live = registry.live("lookup");
    expect(of(events, "tool.readmitted").map((event) => [event.data.rule, event.data.revision.digest])).toEqual([["drift-server-descriptions", live?.digest]]);
    expect(of(events, "action.admitted")[0]?.data.toolRevision).toBe(live?.digest);
    // The requests before and after the re-admission rebuild from the journal, byte for byte.
    for (const [index, event] of of(events, "model.requested").entries()) {
      expect((await reconstructRequest(journal, { tenantId: TENANT, runId: result.runId }, index + 1)).requestHash).toBe(event.data.requestHash);
    }
  });
});
