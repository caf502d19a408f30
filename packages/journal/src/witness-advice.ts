import { YokeError, type RunScope, type WitnessCase } from "@yoke/protocol";

// What to do about a journal its head witness refuses, for each ordinary way of getting there:
// every refusal names the flag of the `yoke` CLI and the `headWitness` option of the library, so
// the operator who reads it has one next step; `details.witnessCase` names the case for code.

const ADOPT = '--adopt-witness (library: headWitness: "adopt")';
const NEW = '--new-journal (library: headWitness: "new")';

/** The database file was deleted (or emptied) while its witness, which records runs, stayed. */
export function databaseDeletedError(witnessPath: string, runs: number, firstRun: RunScope | undefined): YokeError {
  const journal = journalOf(witnessPath);
  const named = firstRun === undefined ? "" : ` (run ${firstRun.runId} of tenant ${firstRun.tenantId}${runs > 1 ? ", …" : ""})`;
  return new YokeError(
    "JOURNAL_TRUNCATED",
    `${journal} holds no events, but its head witness ${witnessPath} records ${runs} run(s)${named}: the database was deleted or replaced. ` +
      `To start a new journal here, open it with ${NEW}, which moves the old witness aside; ` +
      `to keep the old journal, restore its database (\`yoke backup\` copies database and witness together)`,
    { details: { witness: witnessPath, runs, witnessCase: "database_deleted" satisfies WitnessCase } },
  );
}

/** The database names a witness that is not beside it: a copy made without its witness (`cp`), or a witness deleted. */
export function witnessMissingError(witnessPath: string, journalId: string): YokeError {
  const journal = journalOf(witnessPath);
  return new YokeError(
    "JOURNAL_WITNESS_INVALID",
    `${witnessPath}: ${journal} names head witness ${journalId}, but the file is missing: the database was copied without its witness (cp), or the witness was deleted. ` +
      `If this file is a copy you made, open it once with ${ADOPT} to accept it as it is; ` +
      `\`yoke backup <db> <dest>\` makes copies that open with no flag`,
    { details: { witness: witnessPath, journalId, witnessCase: "witness_missing" satisfies WitnessCase } },
  );
}

/** The witness beside the database is another journal's: one of the two files was replaced. */
export function otherJournalError(witnessPath: string, witnessId: string, journalId: string): YokeError {
  return new YokeError(
    "JOURNAL_WITNESS_INVALID",
    `${witnessPath}: the head witness belongs to journal ${witnessId}, not to this one (${journalId}): the database or its -head file was replaced by another journal's. ` +
      `To accept the database as it is, open it once with ${ADOPT} (the other witness is moved aside)`,
    { details: { witness: witnessPath, journalId, witnessId, witnessCase: "other_journal" satisfies WitnessCase } },
  );
}

/** The advice a run gets that holds fewer events than its witness says were acknowledged. */
export const OLDER_COPY_ADVICE =
  `acknowledged events were lost, or an older copy of the database was restored over a newer one. ` +
  `If you restored a backup on purpose, open the journal once with ${ADOPT} to accept it as it is (the newer witness is moved aside); ` +
  `otherwise restore the newer database`;

/** `<dir>/yoke.db` for the witness `<dir>/yoke.db-head`. */
function journalOf(witnessPath: string): string {
  return witnessPath.endsWith("-head") ? witnessPath.slice(0, -"-head".length) : witnessPath;
}
