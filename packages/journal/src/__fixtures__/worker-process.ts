import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { YokeError } from "@yoke/protocol";
import { expect } from "vitest";

const FIXTURES = import.meta.dirname;

/**
 * Starts `__fixtures__/<script>` in a separate Node process (TypeScript through
 * register-ts.mjs). Resolves once the worker has printed "ready" (it has opened its file and
 * waits); `release()` writes the line it waits for, so all workers start together, and
 * resolves with what it printed after "ready" once it has exited with code 0.
 */
export async function startWorker(script: string, args: readonly string[]): Promise<{ release(): Promise<string> }> {
  const child = spawn(process.execPath, ["--no-warnings", "--import", join(FIXTURES, "register-ts.mjs"), join(FIXTURES, script), ...args], {
    cwd: join(FIXTURES, "..", ".."),
    stdio: ["pipe", "pipe", "pipe"],
    // A worker that hangs (a test that failed, a bug) must not outlive its test and spin on.
    timeout: 60_000,
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = once(child, "exit") as Promise<[number | null]>;
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", () => stdout.startsWith("ready\n") && resolve());
    void exited.then(([code]) => reject(new YokeError("INTERNAL", `${script} ${args.join(" ")} exited (${code}) before it was ready: ${stderr}`)));
  });
  return {
    async release() {
      // stdin stays open: the worker takes its end for the end of its test (see lifeline.ts).
      child.stdin.write("go\n");
      const [code] = await exited;
      expect(code, stderr).toBe(0);
      return stdout.slice("ready\n".length);
    },
  };
}
