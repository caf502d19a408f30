import type { CliJournal, OpenStoreOptions } from "../store/open-store.js";

/** Where the CLI writes and what it reads: the process's streams by default, buffers in tests. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Whether stderr/stdout go to a terminal: progress lines are drawn only then. */
  readonly isTTY: boolean;
  /** Environment (YOKE_JOURNAL); default process.env. */
  readonly env?: NodeJS.ProcessEnv;
  /** Resolves when the user asks `yoke view` to stop (SIGINT/SIGTERM); default: those signals. */
  readonly stopSignal?: () => Promise<void>;
}

/**
 * How a command writes to stdout: the only way it can. Text for people goes through `lines`,
 * which escapes every control character of every line (see `escapeTerminal`), so journal
 * contents cannot act on the terminal; machine formats go through `json` or `exact`, unchanged.
 */
export interface CommandOutput {
  /** Lines for people: each escaped whole (a newline inside one is shown as `\n`), each ended by a newline. */
  lines(lines: readonly string[]): void;
  /** One JSON document (`--json`): `JSON.stringify(value, null, 2)` and a newline, byte for byte. */
  json(value: unknown): void;
  /** A machine format written exactly as given (an export document, a request's bytes). */
  exact(text: string): void;
}

/** What every command gets: its arguments, its output, the environment and a way to open the store. */
export interface CommandContext {
  readonly args: readonly string[];
  /** The environment and stop signal; writing goes through `out` only. */
  readonly io: Omit<CliIo, "stdout" | "stderr">;
  readonly out: CommandOutput;
  readonly open: (location: string | undefined, options?: OpenStoreOptions) => Promise<CliJournal>;
  /** Draws a progress line on a TTY (stderr, overwritten in place, escaped like `out.lines`); a no-op otherwise. */
  readonly progress: (text: string) => void;
  /** Clears the progress line. */
  readonly progressDone: () => void;
  /** A log line for operators, written to stderr as given (`yoke worker`'s JSON lines, whose strings JSON escapes). */
  readonly log: (line: string) => void;
}
