// A real MCP server that fails mid-call, through the whole runtime: the drift server's fault
// modes (dies, hangs past the deadline, answers something that is not a tool result, answers a
// request nobody sent, writes a line that is not JSON) each leave a journaled outcome. The
// undeclared remote tool is `irreversible` with no reconciler, so a call whose effect may have
// happened is `uncertain` and the run escalates naming the action — never retried blindly,
// never reported as done. A tool's own error result is a TOOL_FAILED result the model sees.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMemoryJournal } from "@yoke/journal";
import { mcpStdioSource } from "@yoke/mcp";
import type { YokeEvent } from "@yoke/protocol";
import { createHarness } from "@yoke/runtime";
import { callTools, createScriptedModel, say } from "@yoke/testkit";
import { createToolRegistry, type ToolRegistry } from "@yoke/tool-registry";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { driftServer, echo, LOOKUP, serverCalls } from "./drift-rig.ts";

const root = mkdtempSync(join(tmpdir(), "yoke-mcp-faults-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const registries: ToolRegistry[] = [];
afterEach(async () => {
  for (const registry of registries.splice(0)) await registry.close();
});

/** A registry of `echo` and the drift server, whose `lookup` fails as `fault` says. `timeoutMs`: declare `lookup` irreversible with this deadline. */
async function faultyRegistry(fault: string, timeoutMs?: number): Promise<{ registry: ToolRegistry; state: string }> {
  const state = join(mkdtempSync(join(root, `${fault}-`)), "state.json");
  // Written before the server starts, so no rename is needed.
  writeFileSync(state, JSON.stringify({ tools: [{ ...LOOKUP, fault }] }));
  const registry = createToolRegistry({ tools: [echo] });
  registries.push(registry);
  const source = mcpStdioSource({ command: process.execPath, args: [driftServer, state], stderr: "ignore" });
  // Without a declaration `lookup` is irreversible, with no reconciler.
  await registry.addSource(source, {
    trustDomain: "third-party",
    ...(timeoutMs === undefined ? {} : { tools: { lookup: { sideEffect: "irreversible" as const, timeoutMs } } }),
  });
  return { registry, state };
}

const of = <T extends YokeEvent["type"]>(events: readonly YokeEvent[], type: T) =>
  events.filter((event): event is Extract<YokeEvent, { type: T }> => event.type === type);

async function runOnce(registry: ToolRegistry, steps: Parameters<typeof createScriptedModel>[0]) {
  const journal = createMemoryJournal();
  const model = createScriptedModel(steps);
  const harness = createHarness({ journal, provider: model, registry, tenantId: "tenant_faults" });
  const result = await harness.start("Look a word up.");
  const events: YokeEvent[] = [];
  for await (const event of harness.events(result.runId)) events.push(event);
  return { result, events };
}

describe("an MCP server that fails mid-call, through the runtime", () => {
  it.each(["die", "malformed", "unknown-id", "garbage"])(
    "fault %s: the undeclared (irreversible) call is journaled uncertain and the run escalates naming it",
    async (fault) => {
      const { registry, state } = await faultyRegistry(fault);
      const { result, events } = await runOnce(registry, [callTools([{ name: "lookup", args: { word: "yoke" } }])]);
      const admitted = of(events, "action.admitted");
      expect(admitted.map((event) => [event.data.toolName, event.data.sideEffect])).toEqual([["lookup", "irreversible"]]);
      expect(admitted[0]?.data.toolRevision).toBe(registry.live("lookup")?.digest);
      expect(of(events, "action.uncertain").map((event) => event.data.actionId)).toEqual([admitted[0]?.data.actionId]);
      expect(of(events, "action.committed")).toEqual([]);
      expect(result.outcome).toMatchObject({ status: "escalated", actionId: admitted[0]?.data.actionId });
      // The request reached the server exactly once: the runtime did not retry an effect it cannot see.
      expect(serverCalls(state)).toEqual([{ name: "lookup", arguments: { word: "yoke" } }]);
    },
    60_000,
  );

  it("fault hang: a call that outlives its deadline is journaled uncertain (its effect may have happened) and the run escalates", async () => {
    const { registry, state } = await faultyRegistry("hang", 300);
    const { result, events } = await runOnce(registry, [callTools([{ name: "lookup", args: { word: "yoke" } }])]);
    const admitted = of(events, "action.admitted");
    expect(of(events, "action.uncertain").map((event) => event.data.actionId)).toEqual([admitted[0]?.data.actionId]);
    expect(result.outcome).toMatchObject({ status: "escalated", actionId: admitted[0]?.data.actionId });
    expect(serverCalls(state)).toEqual([{ name: "lookup", arguments: { word: "yoke" } }]);
  }, 60_000);

  it("a tool's own error result (isError) is a TOOL_FAILED result the model sees, and the run goes on", async () => {
    const { registry } = await faultyRegistry("error");
    const { result, events } = await runOnce(registry, [
      callTools([{ name: "lookup", args: { word: "yoke" } }]),
      (request) => {
        const shown = request.messages.filter((message) => message.role === "tool").at(-1);
        expect(shown?.role === "tool" ? shown.content.map((part) => part.result.error?.code) : []).toEqual(["TOOL_FAILED"]);
        return say("the dictionary is down");
      },
    ]);
    expect(result.outcome?.status).toBe("completed");
    expect(of(events, "action.failed").map((event) => event.data.result.error?.code)).toEqual(["TOOL_FAILED"]);
  });
});
