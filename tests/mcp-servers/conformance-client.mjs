#!/usr/bin/env node
// The client the official MCP conformance suite drives (scripts/mcp-conformance.sh): Yoke's
// MCP tool source (@yoke/mcp, over Streamable HTTP) doing what each client scenario asks.
// The suite appends the server URL as the last argument and names the scenario in
// MCP_CONFORMANCE_SCENARIO. Exit status 0 when the source did its part, 1 otherwise.
import { mcpHttpSource } from "@yoke/mcp";

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "initialize";

/** The arguments each scenario's tool expects (none for a tool not named here). */
const argumentsFor = { add_numbers: { a: 5, b: 3 } };

const source = mcpHttpSource({ url, clientInfo: { name: "yoke-conformance-client", version: "0.1.0" } });
const context = (name) => ({
  actionId: `act_${name}`,
  idempotencyKey: `act_${name}`,
  attemptId: `att_${name}`,
  attempt: 1,
  signal: AbortSignal.timeout(15_000),
});

try {
  await source.connect();
  const tools = await source.list();
  process.stdout.write(`${scenario}: listed ${tools.map((tool) => tool.name).join(", ") || "no tools"}\n`);
  if (scenario !== "initialize") {
    for (const tool of tools) {
      const output = await source.call(tool.name, argumentsFor[tool.name] ?? {}, context(tool.name));
      process.stdout.write(`${tool.name}: ${typeof output === "string" ? output : output.content}\n`);
    }
  }
  await source.close();
} catch (error) {
  process.stderr.write(`${scenario}: ${error?.code ?? ""} ${error instanceof Error ? error.message : String(error)}\n`);
  await source.close().catch(() => {});
  process.exit(1);
}
