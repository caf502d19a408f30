import { YokeError } from "@yoke/protocol";
import { terminalLines } from "../format/terminal.js";

/**
 * The `yoke` exit codes (documented in the README):
 * 0 ok; 1 a check failed (a broken chain, a request that does not rebuild, a replay that diverged, an import
 * refused for its chain); 2 usage (unknown command or option, missing argument); 3 not found
 * (no such journal file, run or turn); 4 the operation failed (any other typed error: a run
 * that already exists, a busy journal, a harness module that does not load); 70 an internal
 * error (a bug: please report it).
 */
export const EXIT = { ok: 0, checkFailed: 1, usage: 2, notFound: 3, failed: 4, internal: 70 } as const;

const CHECK_FAILED = new Set([
  "JOURNAL_CHAIN_BROKEN",
  "JOURNAL_CORRUPT",
  "JOURNAL_TRUNCATED",
  "JOURNAL_WITNESS_INVALID",
  "REQUEST_MISMATCH",
  "REPLAY_DIVERGED",
]);
const NOT_FOUND = new Set(["RUN_NOT_FOUND", "APPROVAL_NOT_FOUND", "JOURNAL_NOT_INITIALIZED"]);

/** A usage error: CONFIG_INVALID marked as the user's command line; `synopsis`, the command's usage, is printed under it. */
export function usageError(message: string, synopsis?: string): YokeError {
  return new YokeError("CONFIG_INVALID", message, { details: { usage: true, ...(synopsis === undefined ? {} : { synopsis }) } });
}

export function exitCodeOf(error: unknown): number {
  if (!YokeError.isInstance(error)) return EXIT.internal;
  if (error.code === "CONFIG_INVALID" && (error.details as { usage?: unknown } | undefined)?.usage === true) return EXIT.usage;
  if (CHECK_FAILED.has(error.code)) return EXIT.checkFailed;
  if (NOT_FOUND.has(error.code)) return EXIT.notFound;
  return EXIT.failed;
}

/**
 * The one line an error prints: the typed code and message, never a stack (a usage error adds
 * the command's synopsis on a second line). Escaped like all text output: a message quotes
 * ids and journal contents, and a newline inside it is shown as `\n`, never a forged line.
 */
export function errorLine(error: unknown): string {
  if (YokeError.isInstance(error)) {
    const synopsis = error.details.synopsis;
    return terminalLines([`yoke: ${error.code}: ${error.message}`, ...(typeof synopsis === "string" ? [`usage: ${synopsis}`] : [])]);
  }
  const message = error instanceof Error ? error.message : String(error);
  return terminalLines([`yoke: internal error: ${message.split("\n")[0]}`]);
}
