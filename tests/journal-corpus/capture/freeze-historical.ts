// Freezes golden journals into the historical corpus: copies each scenario's journal.jsonl to
// src/__fixtures__/historical/<release-dir>/<scenario>/ with a meta.json, and adds both files'
// SHA-256 to MANIFEST.json. It never overwrites: a directory or manifest entry that exists
// already is refused (the historical corpus is never re-recorded; a new release adds a directory).
//
//   node capture/freeze-historical.ts <release-dir> <commit> <scenario>...
//   node capture/freeze-historical.ts --legacy <release-dir> <commit> <name> <runtime-suite file> <journal name> <why>
//
// `--legacy` freezes a journal no golden scenario can write on today's runtime (an event type
// only older journals hold) from the runtime suite's captured journals, with `scenario: null`
// and `legacy` saying why.
//
// With YOKE_FREEZE_FROM=<commit>, each journal is taken as git committed it at that commit
// (the bytes a release wrote, when the golden file was re-recorded since).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HISTORICAL, MANIFEST_FILE, sha256Hex, type HistoricalMeta, type StreamHead } from "../src/historical-corpus.ts";

const GOLDEN = join(import.meta.dirname, "..", "src", "__fixtures__", "golden");
const legacy = process.argv[2] === "--legacy";
const [release, commit, ...scenarios] = process.argv.slice(legacy ? 3 : 2);
if (release === undefined || commit === undefined || scenarios.length === 0)
  throw new Error("usage: freeze-historical.ts <release-dir> <commit> <scenario>...");

interface Line {
  readonly runId: string;
  readonly hash: string;
  readonly type: string;
  readonly schemaVersion: number;
  readonly data: { readonly release?: { readonly runtime?: string } };
}

function metaOf(scenario: string | null, text: string, why?: string): HistoricalMeta {
  const lines = text
    .slice(0, -1)
    .split("\n")
    .map((line) => JSON.parse(line) as Line);
  const streams = new Map<string, StreamHead>();
  for (const line of lines) streams.set(line.runId, { runId: line.runId, events: (streams.get(line.runId)?.events ?? 0) + 1, head: line.hash });
  const started = lines.find((line) => line.type === "run.started");
  return {
    scenario,
    recordedAt: commit!,
    runtime: started?.data.release?.runtime ?? "unknown",
    eventSchemaVersion: Math.max(...lines.map((line) => line.schemaVersion)),
    streams: [...streams.values()],
    events: lines.length,
    sha256: sha256Hex(text),
    ...(why === undefined ? {} : { legacy: why }),
  };
}

/** The events of journal `name` in a runtime-suite file (header line `{ journal }`, then its events). */
function capturedJournal(file: string, name: string): string {
  const lines: string[] = [];
  let inside = false;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line === "") continue;
    const value = JSON.parse(line) as { journal?: string; seq?: number };
    if (value.seq === undefined) inside = value.journal === name;
    else if (inside) lines.push(line);
  }
  if (lines.length === 0) throw new Error(`${file} holds no journal named ${name}`);
  return lines.map((line) => `${line}\n`).join("");
}

const manifestPath = join(HISTORICAL, MANIFEST_FILE);
const manifest = existsSync(manifestPath) ? (JSON.parse(readFileSync(manifestPath, "utf8")) as Record<string, string>) : {};

function freeze(name: string, text: string, meta: HistoricalMeta): void {
  const directory = join(HISTORICAL, release!, name);
  if (existsSync(directory)) throw new Error(`${release}/${name} is frozen already: the historical corpus is never re-recorded`);
  const metaText = `${JSON.stringify(meta, null, 2)}\n`;
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, "journal.jsonl"), text);
  writeFileSync(join(directory, "meta.json"), metaText);
  manifest[`${release}/${name}/journal.jsonl`] = sha256Hex(text);
  manifest[`${release}/${name}/meta.json`] = sha256Hex(metaText);
}

if (legacy) {
  const [name, file, journalName, why] = scenarios;
  if (name === undefined || file === undefined || journalName === undefined || why === undefined)
    throw new Error("usage: --legacy <release-dir> <commit> <name> <file> <journal name> <why>");
  const text = capturedJournal(file, journalName);
  freeze(name, text, metaOf(null, text, why));
}
for (const scenario of legacy ? [] : scenarios) {
  const from = process.env.YOKE_FREEZE_FROM;
  const text =
    from === undefined
      ? readFileSync(join(GOLDEN, scenario, "journal.jsonl"), "utf8")
      : execFileSync("git", ["show", `${from}:./src/__fixtures__/golden/${scenario}/journal.jsonl`], {
          cwd: join(import.meta.dirname, ".."),
          encoding: "utf8",
          maxBuffer: 1 << 26,
        });
  freeze(scenario, text, metaOf(scenario, text));
}
const sorted = Object.fromEntries(Object.entries(manifest).sort(([a], [b]) => (a < b ? -1 : 1)));
writeFileSync(manifestPath, `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`froze ${legacy ? 1 : scenarios.length} journal(s) into ${release}`);
