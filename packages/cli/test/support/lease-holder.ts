// A live owner: takes a run's lease under this process's identity (`processOwnerId`) and holds
// it, alive, until it is killed. `node lease-holder.ts <journal> <tenant> <run>`; prints "held".
import { createSqliteJournal } from "@yoke/journal";
import { processOwnerId } from "@yoke/runtime";

const [filename, tenantId, runId] = process.argv.slice(2) as [string, string, string];
const journal = await createSqliteJournal({ filename });
// The crashed owner before it is dead for certain: taken over as a worker would.
await journal.leases.acquire({ tenantId, runId }, { ownerId: processOwnerId(), ttlMs: 600_000, ownerIsGone: () => true });
process.stdout.write("held\n");
process.stdin.resume();
