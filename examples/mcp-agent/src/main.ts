// A run over a real MCP server: @modelcontextprotocol/server-filesystem over stdio (from
// node_modules, on a temporary workspace), driven by a scripted model (no network). The tool
// registry pins the server's tools in run.started; each turn is offered the three tools
// discovery admits; every action names the revision it ran. Prints the timeline, the pinned
// digests and the journal's verification.
//
//   node src/main.ts [--dir D]     D defaults to ./.yoke-mcp-agent (removed and recreated)
import { createRequire } from "node:module";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { createSqliteJournal } from "@yoke/journal";
import { mcpStdioSource } from "@yoke/mcp";
import { sequentialIdSource, steppingClock } from "@yoke/protocol";
import { createHarness } from "@yoke/runtime";
import { callTools, createScriptedModel, say } from "@yoke/testkit";
import { createToolRegistry } from "@yoke/tool-registry";
import { describeEvent } from "../../quickstart/src/timeline.ts";

const { values } = parseArgs({ options: { dir: { type: "string", default: ".yoke-mcp-agent" } } });
const dir = resolve(values.dir!);
const workspace = join(dir, "workspace");
rmSync(dir, { recursive: true, force: true });
mkdirSync(join(workspace, "notes"), { recursive: true });
writeFileSync(join(workspace, "notes", "todo.txt"), "ship the registry\npin every tool\n");

// The server, spawned from node_modules: only the workspace is reachable through it.
const require = createRequire(import.meta.url);
const serverBin = join(dirname(require.resolve("@modelcontextprotocol/server-filesystem/package.json")), "dist/index.js");
const registry = createToolRegistry();
await registry.addSource(mcpStdioSource({ command: process.execPath, args: [serverBin, workspace], stderr: "ignore" }), {
  trustDomain: "mcp-filesystem",
  capabilities: ["fs"],
  // The registering code declares what each tool does: MCP annotations are hints only, and an
  // undeclared tool is irreversible with no reconciler.
  tools: {
    list_directory: { sideEffect: "none", capabilities: ["fs.read"] },
    read_text_file: { sideEffect: "none", capabilities: ["fs.read"] },
    write_file: { sideEffect: "idempotent", capabilities: ["fs.write"] },
  },
});

const notes = join(workspace, "notes");
const summary = join(workspace, "summary.md");
const model = createScriptedModel([
  callTools([{ name: "list_directory", args: { path: notes } }]),
  callTools([{ name: "read_text_file", args: { path: join(notes, "todo.txt") } }]),
  callTools([{ name: "write_file", args: { path: summary, content: "# Summary\n\n- ship the registry\n- pin every tool\n" } }]),
  say("summary.md lists both items."),
]);
const store = await createSqliteJournal({ filename: join(dir, "journal.sqlite") });
const scope = { tenantId: "tenant_demo", runId: "run_mcp_agent" };
const harness = createHarness({
  journal: store,
  provider: model,
  registry,
  // Of the server's tools, this principal is offered the ones it needs, by name.
  discovery: { principal: "demo-user", filter: { names: ["list_directory", "read_text_file", "write_file"] } },
  tenantId: scope.tenantId,
  clock: steppingClock(Date.UTC(2026, 0, 1), 1),
  ids: sequentialIdSource(),
  maxTurns: 6,
  checkCompletion: async () =>
    existsSync(summary) && readFileSync(summary, "utf8").includes("- pin every tool")
      ? { passed: true }
      : { passed: false, reason: "summary.md is missing an item" },
  onEvent: (event) => console.log(describeEvent(event)),
});

console.log(`run ${scope.runId} over server-filesystem (stdio) in ${workspace}\n`);
const result = await harness.start("Summarize notes/todo.txt into summary.md.", { runId: scope.runId });
model.assertConsumed();
const verification = await store.verify(scope);
await registry.close();

const pinned = result.state.toolSnapshot;
console.log("");
const status = result.waiting ? `waiting for a person (${result.waiting.kind})` : result.outcome.status;
console.log(`outcome: ${status} after ${result.state.turns} turns`);
console.log(`pinned snapshot ${pinned?.digest.slice(0, 12)}: ${pinned?.revisions.length} tools of server-filesystem`);
for await (const event of harness.events(scope.runId)) {
  if (event.type === "action.admitted") console.log(`  ${event.data.actionId} ${event.data.toolName} ran revision ${event.data.toolRevision?.slice(0, 12)}`);
}
await store.close();
console.log(verification.ok ? `journal verify: ok (${verification.events} events)` : `journal verify: FAILED at event ${verification.firstBadSeq}`);
process.exit(status === "verified_success" && verification.ok ? 0 : 1);
