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

/** What every command gets: its arguments, the streams and a way to open the store. */
export interface CommandContext {
  readonly args: readonly string[];
  readonly io: CliIo;
  readonly open: (location: string | undefined, options?: OpenStoreOptions) => Promise<CliJournal>;
  /** Draws a progress line on a TTY (stderr, overwritten in place); a no-op otherwise. */
  readonly progress: (text: string) => void;
  /** Clears the progress line. */
  readonly progressDone: () => void;
}
