import { type ChildProcess, spawn } from "node:child_process";
import { type BudgetAmounts, type VerifierInput, type VerifierV1, YokeError } from "@yoke/protocol";
import { cancelled, defineVerifier } from "./define-verifier.js";
import { TailBuffer } from "./tail-buffer.js";

/** The timer a command verifier arms its timeout with (default: the global `setTimeout`). */
export interface VerifierTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface CommandVerifierOptions {
  readonly id: string;
  /** The program to run, found on PATH or as a path. No shell: arguments are passed as they are. */
  readonly command: string;
  readonly args?: readonly string[];
  /** Where the command runs. Default: the run's workspace (`input.workspace`). */
  readonly cwd?: string;
  /** Variables set on top of this process's environment. */
  readonly env?: Readonly<Record<string, string>>;
  /** Kill the command (and every process it started) after this many ms: VERIFIER_FAILED. */
  readonly timeoutMs: number;
  /** UTF-8 bytes of stdout and of stderr kept, the last ones. Default 4096. */
  readonly tailBytes?: number;
  /** Exit codes that pass. Default [0]. */
  readonly passOn?: readonly number[];
  /** The command only reads (it may run again on replay). Default false: a command may write. */
  readonly replaySafe?: boolean;
  readonly description?: string;
  /** What the runtime reserves before it runs. Default `{ wall_time: timeoutMs }`. */
  readonly reserve?: BudgetAmounts;
  readonly timers?: VerifierTimers;
}

/** `details` of a command verifier's verdict (and of its VERIFIER_FAILED / CANCELLED errors). */
export interface CommandVerdictDetails {
  readonly command: string;
  readonly args: string[];
  readonly cwd: string;
  /** null when a signal ended the process. */
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** By `input.clock`, from spawn to the process's end. */
  readonly durationMs: number;
  readonly stdoutTail: string;
  readonly stderrTail: string;
  /** Bytes of each stream not in its tail. */
  readonly truncatedBytes: { stdout: number; stderr: number };
}

/**
 * Runs a declared command in the workspace and passes when it exits with a code in `passOn`.
 * Spawned without a shell, in its own process group; `input.signal` and `timeoutMs` kill
 * the whole group (SIGKILL). Output is kept as a bounded tail per stream (a ring of
 * `tailBytes`, cut on a code point boundary), so a command that prints gigabytes costs
 * `tailBytes` of memory.
 *
 * - exit code in `passOn` → `{ passed: true }`; another code, or a signal the command died
 *   of → `{ passed: false, retry: true, reason }` (the model can fix the code and try again);
 *   `details` is `CommandVerdictDetails`.
 * - the command cannot start (not found, not executable, no such cwd, no workspace) or it
 *   outlives `timeoutMs` (or exits but leaves a process outside its group holding its output
 *   open past `timeoutMs`) → throws YokeError VERIFIER_FAILED: the verifier did not get an
 *   answer, which is not the same as a failing answer (`details.reason` is `"spawn"` or
 *   `"timeout"`, with what was seen).
 * - `input.signal` aborts → the group is killed and it throws CANCELLED.
 *
 * @example
 * ```ts
 * const tests = commandVerifier({ id: "unit-tests", command: "npm", args: ["test"], timeoutMs: 120_000 });
 * const verdict = await tests.verify(input); // input.workspace is where npm runs
 * ```
 */
export function commandVerifier(options: CommandVerifierOptions): VerifierV1 {
  const { id, command, timeoutMs } = options;
  const args = [...(options.args ?? [])];
  const tailBytes = options.tailBytes ?? 4096;
  const passOn = options.passOn ?? [0];
  if (typeof command !== "string" || command.length === 0) throw new YokeError("CONFIG_INVALID", `verifier "${id}": command must be a non-empty string`);
  if (!Number.isInteger(timeoutMs) || timeoutMs <= 0) throw new YokeError("CONFIG_INVALID", `verifier "${id}": timeoutMs must be a positive integer`);
  if (!Number.isInteger(tailBytes) || tailBytes < 0) throw new YokeError("CONFIG_INVALID", `verifier "${id}": tailBytes must be a non-negative integer`);
  if (passOn.length === 0 || !passOn.every(Number.isInteger)) throw new YokeError("CONFIG_INVALID", `verifier "${id}": passOn must list integer exit codes`);
  const timers = options.timers ?? { setTimeout: (callback, ms) => setTimeout(callback, ms), clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout) };
  const shown = [command, ...args].join(" ");

  return defineVerifier({
    id,
    kind: "command",
    replaySafe: options.replaySafe ?? false,
    ...(options.description === undefined ? {} : { description: options.description }),
    reserve: options.reserve ?? { wall_time: timeoutMs },
    async verify(input: VerifierInput) {
      const cwd = options.cwd ?? input.workspace;
      if (cwd === undefined) {
        throw new YokeError("VERIFIER_FAILED", `verifier "${id}": no cwd was given and the run has no workspace to run "${shown}" in`, {
          details: { verifierId: id, reason: "spawn", command, args },
        });
      }
      const ended = await run({ command, args, cwd, env: options.env, timeoutMs, tailBytes, timers, input });
      const details: CommandVerdictDetails = { command, args, cwd, ...ended.details };
      if (ended.end === "spawn-error") {
        throw new YokeError("VERIFIER_FAILED", `verifier "${id}": "${shown}" could not start: ${ended.error.message}`, {
          cause: ended.error,
          details: { verifierId: id, reason: "spawn", ...details, errorCode: (ended.error as NodeJS.ErrnoException).code ?? null },
        });
      }
      if (ended.end === "timeout") {
        throw new YokeError("VERIFIER_FAILED", `verifier "${id}": "${shown}" did not finish within ${timeoutMs} ms and was killed`, {
          details: { verifierId: id, reason: "timeout", timeoutMs, ...details },
        });
      }
      if (ended.end === "aborted") throw cancelled(input.signal, id, { ...details });
      if (details.exitCode !== null && passOn.includes(details.exitCode)) return { passed: true, details: { ...details } };
      const how = details.exitCode === null ? `was killed by ${details.signal}` : `exited with code ${details.exitCode}`;
      const output =
        details.stderrTail.trim() !== ""
          ? `\nstderr (last lines):\n${details.stderrTail}`
          : details.stdoutTail.trim() !== ""
            ? `\nstdout (last lines):\n${details.stdoutTail}`
            : "";
      return { passed: false, retry: true, reason: `"${shown}" ${how}${output}`, details: { ...details } };
    },
  });
}

type Ended =
  | { end: "exit" | "timeout" | "aborted"; details: Omit<CommandVerdictDetails, "command" | "args" | "cwd"> }
  | { end: "spawn-error"; error: Error; details: Omit<CommandVerdictDetails, "command" | "args" | "cwd"> };

function run(request: {
  command: string;
  args: string[];
  cwd: string;
  env: Readonly<Record<string, string>> | undefined;
  timeoutMs: number;
  tailBytes: number;
  timers: VerifierTimers;
  input: VerifierInput;
}): Promise<Ended> {
  const { input, timers } = request;
  const startedAt = input.clock.now();
  const stdout = new TailBuffer(request.tailBytes);
  const stderr = new TailBuffer(request.tailBytes);
  return new Promise<Ended>((resolve) => {
    let child: ChildProcess;
    let cut: "timeout" | "aborted" | undefined;
    let settled = false;
    const detailsOf = (exitCode: number | null, signal: string | null) => {
      const out = stdout.tail();
      const err = stderr.tail();
      return {
        exitCode,
        signal,
        durationMs: Math.max(0, input.clock.now() - startedAt),
        stdoutTail: out.text,
        stderrTail: err.text,
        truncatedBytes: { stdout: out.truncatedBytes, stderr: err.truncatedBytes },
      };
    };
    const finish = (ended: Ended): void => {
      if (settled) return;
      settled = true;
      timers.clearTimeout(timer);
      input.signal.removeEventListener("abort", onAbort);
      resolve(ended);
    };
    const killGroup = (reason: "timeout" | "aborted"): void => {
      cut ??= reason;
      const pid = child.pid;
      if (pid === undefined) return;
      try {
        // The group: the command and everything it started (it leads its own group).
        if (process.platform === "win32") child.kill("SIGKILL");
        else process.kill(-pid, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
      // It exited already, and something outside its group (a daemon it left) holds the pipes: do not wait for them.
      if (child.exitCode !== null || child.signalCode !== null) {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish({ end: reason, details: detailsOf(child.exitCode, child.signalCode) });
      }
    };
    const onAbort = (): void => killGroup("aborted");
    const timer = timers.setTimeout(() => killGroup("timeout"), request.timeoutMs);
    try {
      child = spawn(request.command, request.args, {
        cwd: request.cwd,
        env: request.env === undefined ? process.env : { ...process.env, ...request.env },
        shell: false,
        detached: process.platform !== "win32",
        stdio: ["ignore", "pipe", "pipe"],
        windowsHide: true,
      });
    } catch (error) {
      finish({ end: "spawn-error", error: error instanceof Error ? error : new Error(String(error)), details: detailsOf(null, null) });
      return;
    }
    input.signal.addEventListener("abort", onAbort, { once: true });
    if (input.signal.aborted) onAbort();
    child.stdout!.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr!.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.on("error", (error) => {
      // Spawn failures (ENOENT, EACCES, a missing cwd) come here with no pid; a kill error after start is not an end.
      if (child.pid === undefined) finish({ end: "spawn-error", error, details: detailsOf(null, null) });
    });
    child.on("exit", (code, signal) => {
      // Killed by us: a grandchild outside the group could hold the pipes open; do not wait for them.
      if (cut !== undefined) {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish({ end: cut, details: detailsOf(code, signal) });
      }
    });
    child.on("close", (code, signal) => {
      finish({ end: cut ?? "exit", details: detailsOf(code, signal) });
    });
  });
}
