// `yoke show` on a 10,000-event run: how long a person waits for the timeline. The run is
// written once by the real harness (packages/cli/test/support/journals.ts, cached under the
// OS temp dir). Measured, interleaved over rounds:
//   process: `node packages/cli/dist/bin.js show <run> --journal <file>` from spawn to exit
//            (Node start, store open, read + hash check of every event, verify, inspect, print);
//   baseline: `node -e` that opens the same file with @yoke/journal and reads every event
//            (Node start + the read alone), so process / baseline is what show adds;
//   in-process: journal.read of every event vs inspectRun over them (ms).
// Prints one JSON line. usage: node cli-show.ts [rounds]
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { createRequire } from "node:module";
import { inspectRun } from "@yoke/cli";
import { createSqliteJournal } from "@yoke/journal";
import type { JournalEvent } from "@yoke/protocol";
import { largeRun, removeJournals } from "../packages/cli/test/support/journals.ts";
import { median } from "./stats.ts";

const rounds = Number(process.argv[2] ?? "7");
const large = await largeRun();
const bin = join(dirname(createRequire(import.meta.url).resolve("@yoke/cli/package.json")), "dist", "bin.js");
const scope = { tenantId: large.tenantId, runId: large.runId };

const baselineScript = `
import { createSqliteJournal } from "@yoke/journal";
const journal = await createSqliteJournal({ filename: ${JSON.stringify(large.file)}, readOnly: true, integrityCheck: "none" });
let count = 0;
for await (const _ of journal.read(${JSON.stringify(scope)})) count += 1;
await journal.close();
console.log(count);
`;

function timed(run: () => void): number {
  const start = process.hrtime.bigint();
  run();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const showMs: number[] = [];
const baselineMs: number[] = [];
const readMs: number[] = [];
const inspectMs: number[] = [];
let printedLines = 0;
for (let round = 0; round < rounds; round++) {
  showMs.push(
    timed(() => {
      const out = execFileSync(process.execPath, [bin, "show", large.runId, "--journal", large.file], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
      printedLines = out.split("\n").length;
    }),
  );
  baselineMs.push(timed(() => execFileSync(process.execPath, ["--input-type=module", "-e", baselineScript], { encoding: "utf8" })));
  const journal = await createSqliteJournal({ filename: large.file, readOnly: true, integrityCheck: "none" });
  const events: JournalEvent[] = [];
  const readStart = process.hrtime.bigint();
  for await (const event of journal.read(scope)) events.push(event);
  readMs.push(Number(process.hrtime.bigint() - readStart) / 1e6);
  await journal.close();
  inspectMs.push(timed(() => inspectRun(events)));
}
removeJournals();

console.log(
  JSON.stringify({
    events: large.events,
    rounds,
    printedLines,
    showMs: median(showMs),
    baselineMs: median(baselineMs),
    ratio: median(showMs) / median(baselineMs),
    readMs: median(readMs),
    inspectMs: median(inspectMs),
  }),
);
