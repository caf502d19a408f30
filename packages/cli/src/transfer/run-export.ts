import { computeEventHash } from "@yoke/journal";
import { escapeTerminal, firstUnsafe } from "../format/terminal.js";
import { scanExport } from "./export-scanner.js";
import { EVENT_SCHEMA_VERSION, GENESIS_HASH, JournalEventSchema, YokeError, canonicalJson, parseYokeEvent, type JournalEvent } from "@yoke/protocol";

/** The format name and version of an exported run. */
export const RUN_EXPORT_FORMAT = "yoke.run-export";
export const RUN_EXPORT_VERSION = 1;

/**
 * One run as a self-checking document: its events exactly as stored (envelopes and hashes
 * included), in order. Serialized as canonical JSON (sorted keys, no whitespace), so the
 * same run always exports to the same bytes.
 */
export interface RunExport {
  readonly format: typeof RUN_EXPORT_FORMAT;
  readonly version: typeof RUN_EXPORT_VERSION;
  readonly tenantId: string;
  readonly runId: string;
  /** The hash of the last event: the head a verifier expects. */
  readonly headHash: string;
  readonly events: readonly JournalEvent[];
}

/** The canonical JSON of a run's events (plus a final newline). */
export function exportRun(events: readonly JournalEvent[]): string {
  const first = events[0];
  const last = events.at(-1);
  if (first === undefined || last === undefined) throw new YokeError("RUN_NOT_FOUND", "there are no events to export");
  const document: RunExport = {
    format: RUN_EXPORT_FORMAT,
    version: RUN_EXPORT_VERSION,
    tenantId: first.tenantId,
    runId: first.runId,
    headHash: last.hash,
    events,
  };
  return `${canonicalJson(document)}\n`;
}

/**
 * Refuses an id a terminal would act on or that could pass for another: one with a C0 or C1
 * control, DEL or a bidi control (see `escapeTerminal`). Every CLI command escapes such an id
 * when it prints it; refusing it at the door keeps it out of the journal and of other tools.
 */
export function checkRunId(kind: "tenant" | "run", id: string): void {
  const index = firstUnsafe(id);
  if (index < 0) return;
  const code = `U+${id.charCodeAt(index).toString(16).toUpperCase().padStart(4, "0")}`;
  throw new YokeError(
    "RUN_ID_INVALID",
    `the export's ${kind} id holds the control character ${code} at index ${index}: ${escapeTerminal(id)}; nothing imported`,
    {
      details: { kind, id: escapeTerminal(id), index },
    },
  );
}

function broken(seq: number, why: string): YokeError {
  return new YokeError("JOURNAL_CHAIN_BROKEN", `the export's event ${seq} ${why}`, { details: { seq } });
}

/**
 * Checks an export's events one at a time, in order: each against the canonical event schemas
 * and its size (`maxEventBytes`: the UTF-8 bytes of its canonical JSON, as a journal counts
 * them), and the hash chain (sequence numbers from 0, each `prevHash` the hash before it, each
 * `hash` the SHA-256 of its event). Every event must belong to the run of the first.
 */
export class ExportChainCheck {
  /** The hash of each event accepted so far, in order. */
  readonly hashes: string[] = [];
  private prevHash = GENESIS_HASH;
  private run: { readonly tenantId: string; readonly runId: string } | undefined;

  constructor(private readonly maxEventBytes: number) {}

  /** The tenant and run of the first event, once one was accepted. */
  get scope(): { readonly tenantId: string; readonly runId: string } | undefined {
    return this.run;
  }

  /** `candidate`, checked as the export's event at `index`; throws the typed error of the first check it fails. */
  accept(candidate: unknown, index: number): JournalEvent {
    const parsed = JournalEventSchema.safeParse(candidate);
    if (!parsed.success)
      throw new YokeError(
        "EVENT_INVALID",
        `the export's event at index ${index} is malformed: ${parsed.error.issues.map((issue) => `${issue.path.join(".") || "(event)"}: ${issue.message}`).join("; ")}`,
        { details: { index } },
      );
    const event = parsed.data;
    if (event.hash.startsWith("hmac-")) {
      throw new YokeError(
        "JOURNAL_KEY_UNAVAILABLE",
        `the export's event ${event.seq} is sealed with a keyed chain (HMAC): it cannot be verified or imported without its key`,
        { details: { seq: event.seq } },
      );
    }
    this.run ??= { tenantId: event.tenantId, runId: event.runId };
    if (event.tenantId !== this.run.tenantId || event.runId !== this.run.runId)
      throw broken(event.seq, `belongs to ${event.tenantId}/${event.runId}, not to ${this.run.tenantId}/${this.run.runId}`);
    if (event.seq !== index) throw broken(index, `has sequence number ${event.seq}`);
    if (event.schemaVersion !== EVENT_SCHEMA_VERSION) {
      throw new YokeError(
        "JOURNAL_SCHEMA_UNSUPPORTED",
        `the export's event ${event.seq} has schema version ${event.schemaVersion}; this yoke imports version ${EVENT_SCHEMA_VERSION}`,
        { details: { seq: event.seq } },
      );
    }
    const bytes = Buffer.byteLength(canonicalJson(event), "utf8");
    if (bytes > this.maxEventBytes) throw tooLarge(index, bytes, this.maxEventBytes);
    if (event.prevHash !== this.prevHash) throw broken(event.seq, "does not follow the event before it (prevHash differs)");
    const { hash, ...body } = event;
    if (computeEventHash(body) !== hash) throw broken(event.seq, "does not hash to its recorded hash: it was edited");
    parseYokeEvent(event);
    this.hashes.push(hash);
    this.prevHash = hash;
    return event;
  }
}

/** An event of the export larger than the journal holds: refused before it is read whole (`bytes` at least) or parsed. */
export function tooLarge(index: number, bytes: number, maxEventBytes: number): YokeError {
  return new YokeError(
    "JOURNAL_EVENT_TOO_LARGE",
    `the export's event ${index} is ${bytes} bytes; the journal holds events of at most ${maxEventBytes} bytes (maxEventBytes); nothing imported`,
    { details: { index, bytes, maxEventBytes } },
  );
}

/** What {@link checkExportFile} found: the run, its event count and each event's hash. */
export interface CheckedExport {
  readonly tenantId: string;
  readonly runId: string;
  readonly headHash: string;
  readonly hashes: readonly string[];
}

/** The limit on one event's text in the file, in UTF-16 units: room for a re-indented export of an event of `maxEventBytes`. */
export function maxEventUnits(maxEventBytes: number): number {
  return maxEventBytes * 2;
}

/**
 * Reads and checks the run export at `path`, a chunk at a time (memory holds one event, never
 * the file): the format and version, the tenant and run ids (RUN_ID_INVALID for a control
 * character), every event (see {@link ExportChainCheck}; an event larger than `maxEventBytes`
 * is JOURNAL_EVENT_TOO_LARGE) and the head. The first failing event's error is thrown only
 * once the document's own fields are known, so a file that is not a Yoke export (another
 * format or version) says so first.
 *
 * @example
 * ```ts
 * const run = checkExportFile("run.json", DEFAULT_MAX_EVENT_BYTES);
 * run.hashes.length; // every event verified
 * ```
 */
export function checkExportFile(path: string, maxEventBytes: number, onEvent?: (count: number) => void): CheckedExport {
  const check = new ExportChainCheck(maxEventBytes);
  const fields = new Map<string, unknown>();
  let events = -1;
  let failure: unknown;
  for (const item of scanExport(path, maxEventUnits(maxEventBytes))) {
    if (item.kind === "field") {
      fields.set(item.key, item.value);
      continue;
    }
    events = item.index + 1;
    onEvent?.(events);
    if (failure !== undefined) continue;
    try {
      if (item.kind === "oversized") throw tooLarge(item.index, item.bytes, maxEventBytes);
      check.accept(item.value, item.index);
    } catch (error) {
      failure = error;
    }
  }
  if (fields.get("format") !== RUN_EXPORT_FORMAT) {
    throw new YokeError("CONFIG_INVALID", `the file is not a Yoke run export (format ${RUN_EXPORT_FORMAT})`);
  }
  const version = fields.get("version");
  if (version !== RUN_EXPORT_VERSION) {
    throw new YokeError("JOURNAL_SCHEMA_UNSUPPORTED", `run export version ${String(version)} is not supported (this yoke reads version ${RUN_EXPORT_VERSION})`);
  }
  const tenantId = fields.get("tenantId");
  const runId = fields.get("runId");
  if (events < 1 || typeof tenantId !== "string" || typeof runId !== "string") {
    throw new YokeError("CONFIG_INVALID", "the run export has no events, tenant or run id");
  }
  checkRunId("tenant", tenantId);
  checkRunId("run", runId);
  const first = check.scope;
  if (first !== undefined && (first.tenantId !== tenantId || first.runId !== runId)) {
    throw broken(0, `belongs to ${first.tenantId}/${first.runId}, not to ${tenantId}/${runId}`);
  }
  if (failure !== undefined) throw failure;
  const headHash = check.hashes.at(-1)!;
  if (fields.get("headHash") !== headHash) throw broken(check.hashes.length - 1, "is not the head the export records");
  return { tenantId, runId, headHash, hashes: check.hashes };
}

/**
 * The events of an export {@link checkExportFile} accepted, read again a batch at a time (at
 * most `maxEvents` events, or past `maxBytes` of their text): each checked again and against
 * the hash the first read found, so a file changed in between is JOURNAL_CHAIN_BROKEN, not
 * imported.
 */
export function* readExportBatches(
  path: string,
  checked: CheckedExport,
  maxEventBytes: number,
  limits: { maxEvents: number; maxBytes: number },
): Generator<JournalEvent[]> {
  const check = new ExportChainCheck(maxEventBytes);
  let batch: JournalEvent[] = [];
  let bytes = 0;
  for (const item of scanExport(path, maxEventUnits(maxEventBytes))) {
    if (item.kind === "field") continue;
    if (item.kind === "oversized") throw tooLarge(item.index, item.bytes, maxEventBytes);
    const event = check.accept(item.value, item.index);
    if (event.hash !== checked.hashes[item.index]) throw broken(item.index, "changed while it was imported");
    batch.push(event);
    bytes += item.bytes;
    if (batch.length >= limits.maxEvents || bytes >= limits.maxBytes) {
      yield batch;
      batch = [];
      bytes = 0;
    }
  }
  if (batch.length > 0) yield batch;
  if (check.hashes.length !== checked.hashes.length) throw broken(check.hashes.length, "is missing: the file changed while it was imported");
}
