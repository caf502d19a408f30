// Keeps the journals of two capture runs (different fast-check seeds) that came out byte for
// byte the same, that are small, and that a store given their drafts re-chains to the same
// hashes; writes them to src/__fixtures__/runtime-suite/, one file per test file, each journal
// a header line { journal, fold } followed by its events.
//
//   node capture/select-stable.ts <run A dir> <run B dir>
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { canonicalJson } from "@yoke/protocol";
import { parseCaptured, rechain, suiteFoldLines, type CapturedJournal } from "../src/runtime-suite.ts";

const MAX_JOURNAL_BYTES = 16 * 1024;
const OUT = join(import.meta.dirname, "..", "src", "__fixtures__", "runtime-suite");

const [runA, runB] = process.argv.slice(2);
if (runA === undefined || runB === undefined) throw new Error("usage: select-stable.ts <run A dir> <run B dir>");

function journalsIn(directory: string, file: string): Map<string, CapturedJournal> {
  let text: string;
  try {
    text = readFileSync(join(directory, file), "utf8");
  } catch {
    return new Map();
  }
  const journals = parseCaptured(text);
  const byName = new Map<string, CapturedJournal>();
  const repeated = new Set<string>();
  for (const journal of journals) {
    if (byName.has(journal.name)) repeated.add(journal.name);
    byName.set(journal.name, journal);
  }
  for (const name of repeated) byName.delete(name);
  return byName;
}

rmSync(OUT, { recursive: true, force: true });
mkdirSync(OUT, { recursive: true });
const tally = { seen: 0, unstable: 0, large: 0, keyed: 0, kept: 0, bytes: 0 };
for (const file of readdirSync(runA).sort()) {
  const a = journalsIn(runA, file);
  const b = journalsIn(runB, file);
  const lines: string[] = [];
  for (const [name, journal] of a) {
    tally.seen += 1;
    const other = b.get(name);
    const bytes = journal.lines.join("\n");
    if (other === undefined || other.lines.join("\n") !== bytes) {
      tally.unstable += 1;
      continue;
    }
    if (bytes.length > MAX_JOURNAL_BYTES) {
      tally.large += 1;
      continue;
    }
    if ((await rechain(journal)).join("\n") !== bytes) {
      tally.keyed += 1;
      continue;
    }
    tally.kept += 1;
    tally.bytes += bytes.length;
    lines.push(canonicalJson({ journal: name, fold: suiteFoldLines(journal) }), ...journal.lines);
  }
  if (lines.length > 0) writeFileSync(join(OUT, file), lines.map((line) => `${line}\n`).join(""));
}
process.stdout.write(`${JSON.stringify(tally)}\n`);
