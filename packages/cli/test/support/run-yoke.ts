// Runs the REAL `yoke` binary (packages/cli/dist/bin.js, built by `turbo run build`) in a
// child process, as a user's shell would.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";

export const YOKE_BIN = fileURLToPath(new URL("../../dist/bin.js", import.meta.url));

export interface YokeRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** `node dist/bin.js ...args`, with `env` added to the environment (YOKE_JOURNAL unset unless given). */
export function runYoke(args: readonly string[], options: { env?: Record<string, string>; cwd?: string } = {}): Promise<YokeRun> {
  const { YOKE_JOURNAL: _unset, ...base } = process.env;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [YOKE_BIN, ...args],
      { env: { ...base, ...options.env }, cwd: options.cwd, maxBuffer: 256 * 1024 * 1024, encoding: "utf8" },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : null;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
