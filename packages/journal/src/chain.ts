import { hash as oneShotHash } from "node:crypto";
import {
  EVENT_SCHEMA_VERSION,
  EVENT_TYPE_PATTERN,
  GENESIS_HASH,
  JournalEventSchema,
  YokeError,
  canonicalJson,
  type EventDraft,
  type JournalEvent,
  type JournalHead,
  type JsonValue,
  type RunScope,
  type VerifyResult,
} from "@yoke/protocol";

/** The hash of an event: SHA-256 over the canonical JSON of every field but `hash`. */
export function computeEventHash(event: Omit<JournalEvent, "hash">): string {
  const body = canonicalJson({
    schemaVersion: event.schemaVersion,
    tenantId: event.tenantId,
    runId: event.runId,
    seq: event.seq,
    type: event.type,
    at: event.at,
    causationId: event.causationId,
    data: event.data,
    prevHash: event.prevHash,
  });
  return sha256(body);
}

/** A sealed event with its data as canonical JSON, the form a store writes. */
export interface SealedEvent {
  readonly event: JournalEvent;
  readonly canonicalData: string;
}

/**
 * Turns drafts into stored events that continue the chain at `head`. Validates every draft
 * and the run-start rule; throws JOURNAL_INVALID_APPEND before anything is written.
 */
export function sealEvents(scope: RunScope, head: JournalHead, drafts: readonly EventDraft[]): JournalEvent[] {
  return sealDrafts(scope, head, drafts).map((sealed) => sealed.event);
}

/**
 * `sealEvents`, also returning each event's data as canonical JSON: the data is serialized
 * once, for the hash and for storage.
 */
export function sealDrafts(scope: RunScope, head: JournalHead, drafts: readonly EventDraft[]): SealedEvent[] {
  if (drafts.length === 0) throw new YokeError("JOURNAL_INVALID_APPEND", "an append needs at least one event");
  let prevHash = head.hash;
  return drafts.map((draft, index) => {
    const checked = checkDraft(draft, index);
    const seq = head.length + index;
    if ((seq === 0) !== (checked.type === "run.started")) {
      throw new YokeError(
        "JOURNAL_INVALID_APPEND",
        seq === 0 ? "the first event of a run must be run.started" : "run.started may only be the first event",
        { details: { seq, type: checked.type } },
      );
    }
    let canonicalData: string;
    try {
      canonicalData = canonicalJson(checked.data, { strict: true });
    } catch (error) {
      throw malformedDraft(index, checked.type, error instanceof Error ? error.message : String(error), error);
    }
    const unsealed = {
      schemaVersion: EVENT_SCHEMA_VERSION,
      tenantId: scope.tenantId,
      runId: scope.runId,
      seq,
      type: checked.type,
      at: checked.at,
      causationId: checked.causationId,
      data: checked.data,
      prevHash,
    };
    const hash = sha256(hashedBody(unsealed, canonicalData));
    prevHash = hash;
    return { event: { ...unsealed, hash }, canonicalData };
  });
}

/**
 * The bytes `computeEventHash` hashes, `canonicalJson` of the envelope, written directly
 * around data that is already canonical JSON (keys in code-unit order, as canonicalJson
 * sorts them). Falls back to canonicalJson when a field is not the plain string or number
 * a validated event has.
 */
function hashedBody(event: Omit<JournalEvent, "hash">, canonicalData: string): string {
  const { tenantId, runId, causationId } = event;
  if (typeof tenantId !== "string" || typeof runId !== "string" || !(causationId === null || typeof causationId === "string")) {
    return canonicalJson({ ...event });
  }
  return (
    `{"at":${JSON.stringify(event.at)},"causationId":${JSON.stringify(causationId)},"data":${canonicalData},` +
    `"prevHash":${JSON.stringify(event.prevHash)},"runId":${JSON.stringify(runId)},` +
    `"schemaVersion":${JSON.stringify(event.schemaVersion)},"seq":${JSON.stringify(event.seq)},` +
    `"tenantId":${JSON.stringify(tenantId)},"type":${JSON.stringify(event.type)}}`
  );
}

/**
 * The envelope checks of EventDraftSchema, written out: this runs for every appended event,
 * and the data's JSON-ness is checked by the strict canonical serialization that follows.
 */
function checkDraft(draft: EventDraft, index: number): { type: string; at: number; causationId: string | null; data: Record<string, JsonValue> } {
  const candidate = draft as Partial<Record<keyof EventDraft, unknown>> | null;
  if (typeof candidate !== "object" || candidate === null) throw malformedDraft(index, undefined, "not an object");
  const { type, at, causationId = null, data } = candidate;
  if (typeof type !== "string" || !EVENT_TYPE_PATTERN.test(type)) throw malformedDraft(index, type, "type must be noun.verb");
  if (typeof at !== "number" || !Number.isSafeInteger(at) || at < 0) throw malformedDraft(index, type, "at must be a non-negative integer");
  if (causationId !== null && typeof causationId !== "string") throw malformedDraft(index, type, "causationId must be a string or null");
  if (typeof data !== "object" || data === null || Array.isArray(data)) throw malformedDraft(index, type, "data must be an object");
  return { type, at, causationId, data: data as Record<string, JsonValue> };
}

function malformedDraft(index: number, type: unknown, why: string, cause?: unknown): YokeError {
  return new YokeError("JOURNAL_INVALID_APPEND", `event ${index} of the append is malformed: ${why}`, {
    details: { index, type: typeof type === "string" ? type : undefined },
    ...(cause === undefined ? {} : { cause }),
  });
}

// One-shot hashing: no Hash object per event (this runs for every append and every read).
function sha256(text: string): string {
  return oneShotHash("sha256", text, "hex");
}

/**
 * Checks one event against its expected position in the chain. Returns null when it
 * verifies, or the failure; `verify` and reads share it so neither can accept what the
 * other rejects.
 */
export function checkEvent(
  scope: RunScope,
  expectedSeq: number,
  expectedPrevHash: string,
  candidate: unknown,
): Extract<VerifyResult, { ok: false }> | null {
  const parsed = JournalEventSchema.safeParse(candidate);
  if (!parsed.success) {
    return { ok: false, firstBadSeq: expectedSeq, reason: "malformed", message: parsed.error.message };
  }
  const event = parsed.data;
  if (event.tenantId !== scope.tenantId || event.runId !== scope.runId) {
    return { ok: false, firstBadSeq: expectedSeq, reason: "scope_mismatch", message: "event belongs to another run or tenant" };
  }
  if (event.seq !== expectedSeq) {
    return { ok: false, firstBadSeq: expectedSeq, reason: "sequence_gap", message: `found seq ${event.seq}` };
  }
  if (event.schemaVersion > EVENT_SCHEMA_VERSION) {
    return { ok: false, firstBadSeq: expectedSeq, reason: "malformed", message: `unknown schema version ${event.schemaVersion}` };
  }
  if (event.prevHash !== expectedPrevHash) {
    return { ok: false, firstBadSeq: expectedSeq, reason: "prev_hash_mismatch", message: "predecessor hash does not match" };
  }
  const { hash, ...rest } = event;
  if (computeEventHash(rest) !== hash) {
    return { ok: false, firstBadSeq: expectedSeq, reason: "hash_mismatch", message: "event content does not match its hash" };
  }
  return null;
}

/** The error a read throws for a failed check. */
export function chainError(scope: RunScope, failure: Extract<VerifyResult, { ok: false }>): YokeError {
  const code = failure.reason === "malformed" ? "JOURNAL_CORRUPT" : "JOURNAL_CHAIN_BROKEN";
  return new YokeError(code, `run ${scope.runId}: event ${failure.firstBadSeq} failed verification (${failure.reason}): ${failure.message}`, {
    details: { tenantId: scope.tenantId, runId: scope.runId, seq: failure.firstBadSeq, reason: failure.reason },
  });
}

export const EMPTY_HEAD: JournalHead = { length: 0, hash: GENESIS_HASH };

/** The conflict a stale writer gets. */
export function conflictError(scope: RunScope, expectedSeq: number, actualLength: number): YokeError {
  return new YokeError(
    "JOURNAL_CONFLICT",
    `run ${scope.runId}: append expected sequence ${expectedSeq} but the run has ${actualLength} events`,
    { details: { tenantId: scope.tenantId, runId: scope.runId, expectedSeq, actualSeq: actualLength } },
  );
}
