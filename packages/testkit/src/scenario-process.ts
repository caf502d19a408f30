// The test's side of a crash-scenario process: runs a scenario script in a fresh Node process,
// waits for the lines it prints, writes the lines it waits for, and kills it (SIGKILL) at the
// moment the test chooses. Every wait is on the child's output, never on the clock. The
// script's side is scenario-script.ts.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** How a scenario process ended. */
export interface Ended {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/**
 * One scenario process.
 *
 * @example
 * ```ts
 * const child = new ScriptProcess("first", scriptPath, ["--dir", dir], "my-compile-cache");
 * await child.line("READY");
 * child.send("go");
 * await child.line("TOOL_STARTED");
 * await child.kill(); // SIGKILL mid-tool
 * ```
 */
export class ScriptProcess {
  readonly lines: string[] = [];
  readonly ended: Promise<Ended>;
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly watchers: { match: (line: string) => boolean; resolve: (line: string) => void }[] = [];
  private stderr = "";
  private exit: Ended | undefined;

  /**
   * Runs `scriptPath` with `args` in a fresh Node process; `cache` names its compile cache
   * directory. `command` runs another program instead (one that starts the script itself).
   */
  constructor(
    readonly name: string,
    scriptPath: string,
    args: readonly string[],
    cache: string,
    command?: { readonly file: string; readonly args: readonly string[] },
  ) {
    this.child = spawn(command?.file ?? process.execPath, command?.args ?? [scriptPath, ...args], {
      env: { NODE_COMPILE_CACHE: join(tmpdir(), cache), ...process.env },
    });
    let buffered = "";
    this.child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      buffered += chunk;
      for (let newline = buffered.indexOf("\n"); newline >= 0; newline = buffered.indexOf("\n")) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        this.lines.push(line);
        for (const watcher of this.watchers.splice(0)) {
          if (watcher.match(line)) watcher.resolve(line);
          else this.watchers.push(watcher);
        }
      }
    });
    this.child.stderr.setEncoding("utf8").on("data", (chunk: string) => (this.stderr += chunk));
    this.ended = new Promise((resolve) =>
      this.child.on("exit", (code, signal) => {
        this.exit = { code, signal };
        for (const watcher of this.watchers.splice(0)) watcher.resolve("");
        resolve(this.exit);
      }),
    );
  }

  /** The first line (already printed or still to come) that starts with `prefix`; "" if the process exits first. */
  line(prefix: string): Promise<string> {
    const seen = this.lines.find((line) => line.startsWith(prefix));
    if (seen !== undefined) return Promise.resolve(seen);
    if (this.exit !== undefined) return Promise.resolve("");
    return new Promise((resolve) => this.watchers.push({ match: (line) => line.startsWith(prefix), resolve }));
  }

  /** Resolves once the process has printed one of `prefixes` or exited; returns which line (or "exit"). */
  async settled(...prefixes: string[]): Promise<string> {
    return Promise.race([...prefixes.map((prefix) => this.line(prefix).then((line) => line || "exit")), this.ended.then(() => "exit")]);
  }

  send(line: string): void {
    if (this.exit === undefined) this.child.stdin.write(`${line}\n`);
  }

  /** Ends the process's stdin (a script waiting for it to close then exits). */
  closeInput(): void {
    this.child.stdin.end();
  }

  /** Sends `signal` (SIGSTOP, SIGCONT, …) to the process. */
  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  kill(): Promise<Ended> {
    this.child.kill("SIGKILL");
    return this.ended;
  }

  has(prefix: string): boolean {
    return this.lines.some((line) => line.startsWith(prefix));
  }

  count(prefix: string): number {
    return this.lines.filter((line) => line.startsWith(prefix)).length;
  }

  /** What the process said, for an assertion message. */
  transcript(): string {
    return `${this.name}: ${this.lines.join(" | ")}${this.stderr === "" ? "" : `\nstderr: ${this.stderr.slice(0, 2000)}`}`;
  }
}
