// MCP call overhead: median latency of one `tools/call` of server-everything's `echo` through
// @yoke/mcp's tool source against the raw SDK `Client.callTool` on the same server program,
// both measured in the same run. stdio: each client spawns its own server process (from
// node_modules); HTTP: one server-everything in Streamable HTTP mode on 127.0.0.1, one session
// per client. Each round opens a fresh pair (which one connects first alternates: on 2 shared
// cores the second server process measurably differs from the first), warms both, then times
// calls alternately one by one, so drift in machine load hits both sides alike. Prints one JSON line.
//   node bench/mcp-call.ts <stdio|http> <calls per round> <rounds>
import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { mcpHttpSource, mcpStdioSource } from "@yoke/mcp";
import type { ToolCallContext, ToolSourceV1 } from "@yoke/protocol";
import { median } from "./stats.ts";

const [transport = "stdio", perRoundArg = "200", roundsArg = "5"] = process.argv.slice(2);
const perRound = Number(perRoundArg);
const rounds = Number(roundsArg);
const everything = join(dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/package.json")), "dist/index.js");

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

async function startHttp(): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [everything, "streamableHttp"], {
    env: { PATH: process.env.PATH ?? "", PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server-everything did not start:\n${stderr}`)), 30_000);
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes(`listening on port ${port}`)) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return { url: `http://127.0.0.1:${port}/mcp`, child };
}

const context = (): ToolCallContext => ({
  actionId: "act_bench",
  idempotencyKey: "act_bench",
  attemptId: "att_bench",
  attempt: 1,
  signal: new AbortController().signal,
});

const http = transport === "http" ? await startHttp() : undefined;

async function openYoke(): Promise<ToolSourceV1> {
  const source = http ? mcpHttpSource({ url: http.url }) : mcpStdioSource({ command: process.execPath, args: [everything], stderr: "ignore" });
  await source.connect();
  await source.list(); // what a registry does once
  return source;
}

async function openRaw(): Promise<Client> {
  const client = new Client({ name: "bench-raw", version: "1.0.0" });
  await client.connect(
    http ? new StreamableHTTPClientTransport(new URL(http.url)) : new StdioClientTransport({ command: process.execPath, args: [everything], stderr: "ignore" }),
  );
  await client.listTools();
  return client;
}

async function timed(call: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await call();
  return (performance.now() - started) * 1000;
}

const yoke: number[] = [];
const raw: number[] = [];
const roundRatios: number[] = [];
for (let round = 0; round < rounds; round += 1) {
  let source: ToolSourceV1;
  let client: Client;
  if (round % 2 === 0) {
    source = await openYoke();
    client = await openRaw();
  } else {
    client = await openRaw();
    source = await openYoke();
  }
  const yokeCall = (i: number) => () => source.call("echo", { message: `m${i}` }, context());
  const rawCall = (i: number) => () => client.callTool({ name: "echo", arguments: { message: `m${i}` } });
  for (let i = 0; i < 30; i += 1) {
    await yokeCall(i)();
    await rawCall(i)();
  }
  const y: number[] = [];
  const r: number[] = [];
  for (let i = 0; i < perRound; i += 1) {
    if (i % 2 === 0) {
      y.push(await timed(yokeCall(i)));
      r.push(await timed(rawCall(i)));
    } else {
      r.push(await timed(rawCall(i)));
      y.push(await timed(yokeCall(i)));
    }
  }
  yoke.push(...y);
  raw.push(...r);
  roundRatios.push(median(y) / median(r));
  await source.close();
  await client.close();
}
http?.child.kill("SIGTERM");

const yokeMedianUs = median(yoke);
const rawMedianUs = median(raw);
console.log(
  JSON.stringify({
    transport,
    calls: yoke.length,
    rounds,
    yokeMedianUs,
    rawMedianUs,
    ratio: yokeMedianUs / rawMedianUs,
    medianRoundRatio: median(roundRatios),
    extraUs: yokeMedianUs - rawMedianUs,
  }),
);
