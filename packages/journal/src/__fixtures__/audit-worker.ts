// An auditor: opens a SQLite journal read-only and prints `verify` of one run as JSON, or
// `ERR <code>` — run as a user who may not write the journal's directory.
import { YokeError } from "@yoke/protocol";
import { createSqliteJournal } from "../sqlite-journal.js";

const [filename, tenantId, runId] = process.argv.slice(2) as [string, string, string];
try {
  const journal = await createSqliteJournal({ filename, readOnly: true });
  process.stdout.write(`${JSON.stringify(await journal.verify({ tenantId, runId }))}\n`);
  await journal.close();
} catch (error) {
  process.stdout.write(`ERR ${YokeError.isInstance(error) ? error.code : String(error)} ${(error as Error).message}\n`);
}
