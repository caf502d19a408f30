// Run in a fresh process by reconstruct-request.test.ts: opens only the journal file and
// rebuilds the requests of the given turns from it. Prints one JSON line.
// usage: node reconstruct-turns.mjs <journal file> <tenant> <run> <turn>...
import { createSqliteJournal } from "@yoke/journal";
import { reconstructRequest } from "@yoke/runtime";

const [filename, tenantId, runId, ...turns] = process.argv.slice(2);
const journal = await createSqliteJournal({ filename });
const rebuilt = [];
for (const turn of turns) {
  const { requestHash, seq, bytes, manifest } = await reconstructRequest(journal, { tenantId, runId }, Number(turn));
  rebuilt.push({
    turn: Number(turn),
    requestHash,
    seq,
    bytes: Buffer.byteLength(bytes, "utf8"),
    truncated: manifest.items.filter((item) => item.decision === "truncated").length,
  });
}
await journal.close();
process.stdout.write(`${JSON.stringify(rebuilt)}\n`);
