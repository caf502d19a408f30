// Test support, in the test-only __fixtures__ folder (never built or shipped): the real MCP
// servers the tests run, from node_modules, and the project's drift server
// (tests/mcp-servers/drift-server.mjs, run by path).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ToolCallContext } from "@yoke/protocol";

const require = createRequire(import.meta.url);

/** `dist/index.js` of an installed server package (its `bin`). */
function binOf(pkg: string): string {
  return join(dirname(require.resolve(`${pkg}/package.json`)), "dist/index.js");
}

export const everythingBin = binOf("@modelcontextprotocol/server-everything");
export const filesystemBin = binOf("@modelcontextprotocol/server-filesystem");
export const driftServerPath = fileURLToPath(new URL("../../../../tests/mcp-servers/drift-server.mjs", import.meta.url));

/** A call context with its own signal (a deadline when `timeoutMs` is given). */
export function callContext(options: { signal?: AbortSignal; timeoutMs?: number } = {}): ToolCallContext {
  const signal = options.signal ?? (options.timeoutMs === undefined ? new AbortController().signal : AbortSignal.timeout(options.timeoutMs));
  return { actionId: "act_test", idempotencyKey: "act_test", attemptId: "att_test", attempt: 1, signal };
}

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** server-everything in Streamable HTTP mode (`index.js streamableHttp`, port from PORT) on a free port. */
export async function startEverythingHttp(): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const port = await freePort();
  const child = spawn(process.execPath, [everythingBin, "streamableHttp"], {
    env: { PATH: process.env.PATH ?? "", PORT: String(port) },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server-everything did not listen on ${port}:\n${stderr}`)), 20_000);
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes(`listening on port ${port}`)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server-everything exited (${code}):\n${stderr}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** The drift server's state file (see tests/mcp-servers/drift-server.mjs). */
export interface DriftState {
  startup?: "ok" | "exit" | "silent";
  notify?: boolean;
  list?: "ok" | "malformed" | "cursor-loop";
  pageSize?: number;
  tools: DriftTool[];
}

export interface DriftTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  result?: Record<string, unknown>;
  fault?: "die" | "hang" | "malformed" | "unknown-id" | "garbage" | "error";
}

/** A drift server in a temp directory: the command line to run it, its state, and the calls it received. */
export function driftServer(initial: DriftState) {
  const dir = mkdtempSync(join(tmpdir(), "yoke-drift-"));
  const stateFile = join(dir, "state.json");
  writeFileSync(stateFile, JSON.stringify(initial));
  return {
    stateFile,
    command: process.execPath,
    args: [driftServerPath, stateFile],
    /** Replaces the state (atomically: the server never reads half a file). */
    write(state: DriftState): void {
      writeFileSync(`${stateFile}.next`, JSON.stringify(state));
      renameSync(`${stateFile}.next`, stateFile);
    },
    calls(): { name: string; arguments: unknown }[] {
      try {
        return readFileSync(`${stateFile}.calls`, "utf8")
          .trim()
          .split("\n")
          .filter((line) => line.length > 0)
          .map((line) => JSON.parse(line) as { name: string; arguments: unknown });
      } catch {
        return [];
      }
    },
    remove(): void {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
