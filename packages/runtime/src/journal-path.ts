import type { LazySqliteJournal } from "@yoke/journal";
import { YokeError, type JournalV1 } from "@yoke/protocol";

/**
 * Opens the journal a harness built from a path (`journal: "./yoke.sqlite"`) before the run's
 * lease is taken, creating the file only for a call that starts something new: a resume never
 * invents an empty journal where a lost one was (its database, `-wal` and witness deleted
 * leave nothing to compare with). A journal passed in as an object is left alone.
 * JOURNAL_NOT_INITIALIZED names the operation and what to do.
 */
export async function openPathJournal(journal: JournalV1, path: JournalV1 | string | undefined, createIfMissing: boolean, operation: string): Promise<void> {
  const lazy = journal as Partial<LazySqliteJournal>;
  if (typeof path !== "string" || typeof lazy.open !== "function") return;
  try {
    await lazy.open({ createIfMissing });
  } catch (error) {
    if (!YokeError.hasCode(error, "JOURNAL_NOT_INITIALIZED")) throw error;
    const hint = operation === "startOrResume" ? "pass createJournal: true to start a new journal there" : "there is nothing to resume";
    throw new YokeError("JOURNAL_NOT_INITIALIZED", `${operation}: there is no journal at ${path} (never created, or deleted): ${hint}`, {
      details: error.details,
      cause: error,
    });
  }
}
