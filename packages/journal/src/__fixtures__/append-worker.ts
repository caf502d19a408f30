// A separate process appending to a shared journal file: `node --import register-ts.mjs
// append-worker.ts <filename> <writer> <events>`. Opens the journal, prints "ready", waits
// for a line on stdin so that all writers start together, then prints what it won and
// lost as JSON.
import { YokeError, type RunScope } from "@yoke/protocol";
import { createSqliteJournal } from "../sqlite-journal.js";
import { waitForGo } from "./lifeline.js";

const [filename, writer, count] = process.argv.slice(2) as [string, string, string];
const scope: RunScope = { tenantId: "tenant_a", runId: "run_shared" };
const journal = await createSqliteJournal({ filename });
process.stdout.write("ready\n");
await waitForGo();
let startedRun = false;
let conflicts = 0;
try {
  await journal.append(scope, 0, [
    {
      type: "run.started",
      at: 0,
      data: { sessionId: "s", task: writer, tools: [], limits: { maxTurns: 1 }, release: { runtime: "test", eventSchemaVersion: 1 } },
    },
  ]);
  startedRun = true;
} catch (error) {
  if (!YokeError.hasCode(error, "JOURNAL_CONFLICT")) throw error;
  conflicts++;
}
const appended: number[] = [];
for (let index = 0; index < Number(count); index++) {
  for (;;) {
    const length = (await journal.head(scope))?.length ?? 0;
    try {
      const result = await journal.append(scope, length, [{ type: "test.noted", at: index, data: { writer, index } }]);
      appended.push(result.lastSeq);
      break;
    } catch (error) {
      if (!YokeError.hasCode(error, "JOURNAL_CONFLICT")) throw error;
      conflicts++;
    }
  }
}
await journal.close();
process.stdout.write(JSON.stringify({ writer, startedRun, conflicts, appended }));
