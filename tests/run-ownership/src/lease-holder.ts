// One process of the owner-identity tests: holds or takes one run's lease in a SQLite journal,
// named and judged the runtime's default way (`processOwnerId`, `sameHostProcessGone`).
//
//   node src/lease-holder.ts --db FILE --mode hold|die|take
//
// hold: takes the lease (10 minutes), prints `HELD <token> <pid>`, keeps it until stdin closes.
// die:  takes the lease, prints `HELD <token> <pid>`, then dies by SIGKILL, the lease still live.
// take: tries to take it with the default `ownerIsGone`; prints `TOOK <token> <pid>` or `REFUSED <code> <pid>`.
import { parseArgs } from "node:util";
import { createSqliteJournal } from "@yoke/journal";
import { YokeError } from "@yoke/protocol";
import { processOwnerId, sameHostProcessGone } from "@yoke/runtime";

const { values } = parseArgs({ options: { db: { type: "string" }, mode: { type: "string" } } });
const scope = { tenantId: "tenant_owner", runId: "run_identity" };
const journal = await createSqliteJournal({ filename: values.db!, synchronous: "normal" });
const request = { ownerId: processOwnerId(), ttlMs: 600_000, ownerIsGone: sameHostProcessGone };
const emit = (line: string) => process.stdout.write(`${line}\n`);

if (values.mode === "take") {
  try {
    emit(`TOOK ${(await journal.leases.acquire(scope, request)).token} ${process.pid}`);
  } catch (error) {
    if (!YokeError.isInstance(error)) throw error;
    emit(`REFUSED ${error.code} ${process.pid}`);
  }
  await journal.close();
} else {
  const lease = await journal.leases.acquire(scope, request);
  emit(`HELD ${lease.token} ${process.pid}`);
  if (values.mode === "die") process.kill(process.pid, "SIGKILL");
  process.stdin.resume();
  process.stdin.on("end", () => void journal.close());
}
