import { computeEventHash } from "@yoke/journal";
import { escapeTerminal, firstUnsafe } from "../format/terminal.js";
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
 * Reads and checks an exported run: the format, every event against the canonical event
 * schemas, and the hash chain end to end (sequence numbers from 0, each `prevHash` the hash
 * before it, each `hash` the SHA-256 of its event, the head as recorded). Throws
 * JOURNAL_CHAIN_BROKEN naming the first event that fails, EVENT_INVALID for a malformed
 * event, CONFIG_INVALID for a document that is not an export, JOURNAL_KEY_UNAVAILABLE for a
 * run sealed with a keyed chain (HMAC), which cannot be checked without its key.
 *
 * @example
 * ```ts
 * const run = parseRunExport(readFileSync("run.json", "utf8"));
 * run.events.length; // every event verified
 * ```
 */
export function parseRunExport(text: string): RunExport {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new YokeError("CONFIG_INVALID", `the file is not JSON: ${(error as Error).message}`);
  }
  const document = value as Partial<RunExport> | null;
  if (document === null || typeof document !== "object" || document.format !== RUN_EXPORT_FORMAT) {
    throw new YokeError("CONFIG_INVALID", `the file is not a Yoke run export (format ${RUN_EXPORT_FORMAT})`);
  }
  if (document.version !== RUN_EXPORT_VERSION) {
    throw new YokeError(
      "JOURNAL_SCHEMA_UNSUPPORTED",
      `run export version ${String(document.version)} is not supported (this yoke reads version ${RUN_EXPORT_VERSION})`,
    );
  }
  if (!Array.isArray(document.events) || document.events.length === 0 || typeof document.tenantId !== "string" || typeof document.runId !== "string") {
    throw new YokeError("CONFIG_INVALID", "the run export has no events, tenant or run id");
  }
  checkRunId("tenant", document.tenantId);
  checkRunId("run", document.runId);
  const events: JournalEvent[] = [];
  let prevHash = GENESIS_HASH;
  for (const [index, candidate] of document.events.entries()) {
    const parsed = JournalEventSchema.safeParse(candidate);
    if (!parsed.success)
      throw new YokeError("EVENT_INVALID", `the export's event at index ${index} is malformed: ${parsed.error.message}`, { details: { index } });
    const event = parsed.data;
    if (event.hash.startsWith("hmac-")) {
      throw new YokeError(
        "JOURNAL_KEY_UNAVAILABLE",
        `the export's event ${event.seq} is sealed with a keyed chain (HMAC): it cannot be verified or imported without its key`,
        {
          details: { seq: event.seq },
        },
      );
    }
    if (event.tenantId !== document.tenantId || event.runId !== document.runId)
      throw broken(event.seq, `belongs to ${event.tenantId}/${event.runId}, not to ${document.tenantId}/${document.runId}`);
    if (event.seq !== index) throw broken(index, `has sequence number ${event.seq}`);
    if (event.schemaVersion !== EVENT_SCHEMA_VERSION) {
      throw new YokeError(
        "JOURNAL_SCHEMA_UNSUPPORTED",
        `the export's event ${event.seq} has schema version ${event.schemaVersion}; this yoke imports version ${EVENT_SCHEMA_VERSION}`,
        {
          details: { seq: event.seq },
        },
      );
    }
    if (event.prevHash !== prevHash) throw broken(event.seq, "does not follow the event before it (prevHash differs)");
    const { hash, ...body } = event;
    if (computeEventHash(body) !== hash) throw broken(event.seq, "does not hash to its recorded hash: it was edited");
    parseYokeEvent(event);
    events.push(event);
    prevHash = hash;
  }
  if (document.headHash !== prevHash) throw broken(events.length - 1, "is not the head the export records");
  return { format: RUN_EXPORT_FORMAT, version: RUN_EXPORT_VERSION, tenantId: document.tenantId, runId: document.runId, headHash: prevHash, events };
}
