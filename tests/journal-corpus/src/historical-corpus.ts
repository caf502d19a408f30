// The historical corpus: journals as the project shipped them, one directory per release that
// shipped a new event schema or event type, never re-recorded. Reading one back checks every
// line against today's protocol, re-chains it, compares it with what its meta.json and the
// corpus manifest recorded, and folds it; each failure is a typed error naming the file and
// the event.
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { computeEventHash } from "@yoke/journal";
import { GENESIS_HASH, JournalEventSchema, YokeError, canonicalJson, parseYokeEvent, reduceRun, type JournalEvent, type RunState } from "@yoke/protocol";

export const HISTORICAL = join(import.meta.dirname, "__fixtures__", "historical");
export const MANIFEST_FILE = "MANIFEST.json";

/** One stream of a frozen journal: its run, how many events it held and the hash of its last. */
export interface StreamHead {
  readonly runId: string;
  readonly events: number;
  readonly head: string;
}

/** What `meta.json` says about the frozen journal beside it. */
export interface HistoricalMeta {
  /** The golden scenario that drives this run on today's code, or null for a journal no scenario reaches (see `legacy`). */
  readonly scenario: string | null;
  /** The commit whose code wrote the journal. */
  readonly recordedAt: string;
  /** `run.started.data.release.runtime` of the journal's first stream. */
  readonly runtime: string;
  readonly eventSchemaVersion: number;
  readonly streams: readonly StreamHead[];
  readonly events: number;
  /** SHA-256 of journal.jsonl, hex. */
  readonly sha256: string;
  /** Why no scenario reaches these events on today's runtime, for a journal of a legacy shape. */
  readonly legacy?: string;
}

export interface HistoricalEntry {
  /** `<release-dir>/<name>`, the directory under historical/. */
  readonly id: string;
  readonly release: string;
  readonly name: string;
  readonly directory: string;
}

export function sha256Hex(bytes: string | Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Every `<release-dir>/<name>` directory of the corpus, sorted. */
export function historicalEntries(root = HISTORICAL): HistoricalEntry[] {
  if (!existsSync(root)) return [];
  const entries: HistoricalEntry[] = [];
  for (const release of readdirSync(root, { withFileTypes: true })) {
    if (!release.isDirectory()) continue;
    for (const name of readdirSync(join(root, release.name), { withFileTypes: true })) {
      if (name.isDirectory())
        entries.push({ id: `${release.name}/${name.name}`, release: release.name, name: name.name, directory: join(root, release.name, name.name) });
    }
  }
  return entries.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Every file of the corpus but the manifest, as paths relative to `root` with forward slashes, sorted. */
export function corpusFiles(root = HISTORICAL): string[] {
  return historicalEntries(root)
    .flatMap((entry) => readdirSync(entry.directory).map((file) => relative(root, join(entry.directory, file)).split("\\").join("/")))
    .sort();
}

/** The manifest: each corpus file's SHA-256. */
export function readManifest(root = HISTORICAL): Record<string, string> {
  const path = join(root, MANIFEST_FILE);
  if (!existsSync(path)) throw new YokeError("JOURNAL_CORRUPT", `the historical corpus has no ${MANIFEST_FILE}`, { details: { reason: "manifest_missing" } });
  return JSON.parse(readFileSync(path, "utf8")) as Record<string, string>;
}

/** Throws JOURNAL_CORRUPT naming `file` when its bytes are not the ones the manifest recorded (or it lists no such file). */
export function checkCorpusFile(manifest: Readonly<Record<string, string>>, file: string, bytes: string | Uint8Array): void {
  const recorded = manifest[file];
  const actual = sha256Hex(bytes);
  if (recorded === actual) return;
  const why = recorded === undefined ? "the manifest lists no such file" : `the manifest recorded sha256 ${recorded}, the file has ${actual}`;
  throw new YokeError("JOURNAL_CORRUPT", `historical corpus checksum mismatch: ${file}: ${why}`, {
    details: { reason: "checksum_mismatch", file, recorded: recorded ?? null, actual },
  });
}

/** Where a line sits, for messages: the file, the line, and the event there when the line says. */
function lineRef(file: string, index: number, value?: unknown): string {
  const event = value as { runId?: unknown; seq?: unknown; type?: unknown } | undefined;
  const at = typeof event?.seq === "number" ? `, event ${String(event.runId)} seq ${event.seq} (${String(event.type)})` : "";
  return `${file} line ${index + 1}${at}`;
}

/** One line as today's protocol reads it: JSON, canonical, a journal event of a known schema and type. */
function parseLine(file: string, index: number, line: string): JournalEvent {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    throw new YokeError("JOURNAL_CORRUPT", `${lineRef(file, index)} is not JSON`, { details: { reason: "not_json", file, line: index + 1 }, cause: error });
  }
  if (canonicalJson(value) !== line) {
    throw new YokeError("JOURNAL_CORRUPT", `${lineRef(file, index, value)} is not canonical JSON`, {
      details: { reason: "not_canonical", file, line: index + 1 },
    });
  }
  const envelope = JournalEventSchema.safeParse(value);
  if (!envelope.success) {
    const seq = (value as { seq?: unknown }).seq;
    throw new YokeError("EVENT_INVALID", `${lineRef(file, index, value)} is not a journal event: ${envelope.error.message}`, {
      details: { index, ...(typeof seq === "number" ? { seq } : {}) },
    });
  }
  try {
    parseYokeEvent(envelope.data);
  } catch (error) {
    if (YokeError.isInstance(error))
      throw new YokeError(error.code, `${lineRef(file, index, value)}: ${error.message}`, { details: error.details, cause: error });
    throw error;
  }
  return envelope.data;
}

/** Each stream's events re-chained from genesis: seqs from 0 without gaps, each predecessor's hash, each hash of its own content. */
function checkChain(file: string, streams: ReadonlyMap<string, readonly JournalEvent[]>): void {
  for (const [runId, events] of streams) {
    let prevHash = GENESIS_HASH;
    for (const [index, event] of events.entries()) {
      const { hash, ...rest } = event;
      const scope = { tenantId: event.tenantId, runId };
      const broken = (reason: string, message: string) =>
        new YokeError("JOURNAL_CHAIN_BROKEN", `${file}: event ${runId} seq ${event.seq} (${event.type}): ${message}`, {
          details: { ...scope, seq: event.seq, reason },
        });
      if (event.seq !== index) throw broken("sequence_gap", `expected seq ${index}`);
      if (event.prevHash !== prevHash) throw broken("prev_hash_mismatch", "its predecessor hash is not the hash of the event before it");
      if (computeEventHash(rest) !== hash) throw broken("hash_mismatch", "its content does not match its hash");
      prevHash = hash;
    }
  }
}

/** The streams `meta.json` recorded, each with as many events and the same head: a shorter stream is JOURNAL_TRUNCATED. */
function checkHeads(file: string, streams: ReadonlyMap<string, readonly JournalEvent[]>, meta: HistoricalMeta): void {
  for (const recorded of meta.streams) {
    const events = streams.get(recorded.runId) ?? [];
    const last = events.at(-1);
    if (events.length < recorded.events) {
      const after = last === undefined ? "no event" : `seq ${last.seq} (${last.type})`;
      throw new YokeError("JOURNAL_TRUNCATED", `${file}: run ${recorded.runId} ends at ${after}; meta.json recorded ${recorded.events} events`, {
        details: { runId: recorded.runId, witness: `${file} meta.json`, seq: last?.seq ?? 0, reason: `recorded ${recorded.events} events` },
      });
    }
    if (events.length > recorded.events || last?.hash !== recorded.head) {
      throw new YokeError("JOURNAL_CORRUPT", `${file}: run ${recorded.runId} ends at seq ${last?.seq ?? 0} with another head than meta.json recorded`, {
        details: { runId: recorded.runId, ...(last === undefined ? {} : { seq: last.seq }), reason: "head_mismatch" },
      });
    }
  }
  const extra = [...streams.keys()].filter((runId) => !meta.streams.some((stream) => stream.runId === runId));
  if (extra.length > 0)
    throw new YokeError("JOURNAL_CORRUPT", `${file}: streams meta.json does not list: ${extra.join(", ")}`, { details: { reason: "unlisted_streams" } });
}

export interface ReadBack {
  readonly streams: ReadonlyMap<string, readonly JournalEvent[]>;
  readonly folds: ReadonlyMap<string, RunState>;
}

/**
 * Reads one frozen journal's text as today's code would: every line parsed and typed, every
 * stream re-chained, compared with `meta` when given, folded. Throws the first problem as a
 * typed YokeError whose message names `file` and the event (run, seq).
 */
export function readJournalText(file: string, text: string, meta?: HistoricalMeta): ReadBack {
  if (text !== "" && !text.endsWith("\n")) {
    const lines = text.split("\n");
    throw new YokeError("JOURNAL_TRUNCATED", `${file} line ${lines.length} is cut short (no end of line): the file was truncated mid-event`, {
      details: { witness: file, seq: lines.length, reason: "cut_line" },
    });
  }
  const lines = text === "" ? [] : text.slice(0, -1).split("\n");
  const streams = new Map<string, JournalEvent[]>();
  for (const [index, line] of lines.entries()) {
    const event = parseLine(file, index, line);
    const events = streams.get(event.runId) ?? [];
    events.push(event);
    streams.set(event.runId, events);
  }
  checkChain(file, streams);
  if (meta !== undefined) checkHeads(file, streams, meta);
  const folds = new Map<string, RunState>();
  for (const [runId, events] of streams) {
    try {
      folds.set(runId, reduceRun(events));
    } catch (error) {
      if (YokeError.isInstance(error))
        throw new YokeError(error.code, `${file}: the fold of run ${runId} refused it: ${error.message}`, { details: error.details, cause: error });
      throw error;
    }
  }
  return { streams, folds };
}

export function readMeta(entry: HistoricalEntry): HistoricalMeta {
  return JSON.parse(readFileSync(join(entry.directory, "meta.json"), "utf8")) as HistoricalMeta;
}

/** One corpus entry read back whole: the manifest's checksums of both files, then the journal against its meta. */
export function readHistorical(
  entry: HistoricalEntry,
  manifest: Readonly<Record<string, string>> = readManifest(),
): ReadBack & { readonly meta: HistoricalMeta } {
  const file = `${entry.id}/journal.jsonl`;
  const text = readFileSync(join(entry.directory, "journal.jsonl"), "utf8");
  const metaText = readFileSync(join(entry.directory, "meta.json"), "utf8");
  const meta = JSON.parse(metaText) as HistoricalMeta;
  // The lines first: a tampered line is named by its event, not only by the file's checksum.
  const read = readJournalText(file, text, meta);
  checkCorpusFile(manifest, `${entry.id}/meta.json`, metaText);
  checkCorpusFile(manifest, file, text);
  return { ...read, meta };
}
