import { hash as oneShotHash } from "node:crypto";
import {
  EVENT_SCHEMA_VERSION,
  GENESIS_HASH,
  JournalEventSchema,
  YokeError,
  canonicalJson,
  type EventDraft,
  type JournalEvent,
  type JournalHead,
  type JournalKey,
  type JsonValue,
  type RunScope,
  type VerifyResult,
} from "@yoke/protocol";
import { EVENT_TYPE_PATTERN, JOURNAL_KEY_ID_PATTERN } from "@yoke/protocol/journal-utils";
import { HMAC_HASH_PREFIX, chainKeyOf, checkKeyedHash, hmacSeal, keyIdOf, type ChainKey, type JournalKeyRing } from "./keyed-chain.js";

/** The hash of an event: SHA-256 over the canonical JSON of every field but `hash`. */
export function computeEventHash(event: Omit<JournalEvent, "hash">): string {
  return sha256(eventBody(event));
}

/**
 * The hash of an event in a keyed chain: `hmac-sha256:<keyId>:<hex>`, the hex being
 * HMAC-SHA256 under `key` of `hmac-sha256:<keyId>:` followed by the canonical JSON
 * `computeEventHash` digests.
 */
export function computeEventHmac(event: Omit<JournalEvent, "hash">, key: JournalKey): string {
  if (!JOURNAL_KEY_ID_PATTERN.test(key.keyId)) {
    throw new YokeError("CONFIG_INVALID", "a journal key id is 1-64 characters of [A-Za-z0-9._-]", { details: { keyId: key.keyId } });
  }
  return hmacSeal(chainKeyOf(key), eventBody(event));
}

/** What an event's hash or HMAC covers: the canonical JSON of every field but `hash`. */
function eventBody(event: Omit<JournalEvent, "hash">): string {
  return canonicalJson({
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
}

/** A sealed event with its data as canonical JSON, the form a store writes. */
export interface SealedEvent {
  readonly event: JournalEvent;
  readonly canonicalData: string;
}

/**
 * Turns drafts into stored events that continue the chain at `head`. Validates every draft
 * and the run-start rule; throws JOURNAL_INVALID_APPEND before anything is written. With
 * `key`, every event is sealed with HMAC-SHA256 under it (see `hmacSeal`).
 */
export function sealEvents(scope: RunScope, head: JournalHead, drafts: readonly EventDraft[], key?: ChainKey): JournalEvent[] {
  return sealDrafts(scope, head, drafts, key).map((sealed) => sealed.event);
}

/**
 * `sealEvents`, also returning each event's data as canonical JSON: the data is serialized
 * once, for the hash and for storage.
 */
export function sealDrafts(scope: RunScope, head: JournalHead, drafts: readonly EventDraft[], key?: ChainKey): SealedEvent[] {
  if (drafts.length === 0) throw new YokeError("JOURNAL_INVALID_APPEND", "an append needs at least one event");
  if (key !== undefined && head.length > 0 && !head.hash.startsWith(HMAC_HASH_PREFIX)) {
    // A keyed journal never extends a chain it could not verify.
    throw chainError(scope, {
      ok: false,
      firstBadSeq: head.length - 1,
      reason: "unkeyed",
      message: "the run's head carries a plain SHA-256 hash, but this journal is keyed",
    });
  }
  if (key === undefined && head.length > 0 && head.hash.startsWith(HMAC_HASH_PREFIX)) {
    // Nor does an unkeyed journal extend a keyed run: its plain event would break the run for the key holder.
    throw chainError(scope, {
      ok: false,
      firstBadSeq: head.length - 1,
      reason: "key_required",
      message: "the run's head is sealed with an HMAC; open the journal with its keys to append to it",
    });
  }
  const { tenantId, runId } = scope;
  // The envelope fields every event of the append shares, serialized once.
  // When an id is not a string, `body` below falls back to canonicalJson and runJson/tenantJson are
  // unused: their `""` alternatives are never read.
  const scoped = typeof tenantId === "string" && typeof runId === "string";
  const runJson = scoped ? `"runId":${JSON.stringify(runId)},"schemaVersion":${EVENT_SCHEMA_VERSION},` : "";
  const tenantJson = scoped ? `"tenantId":${JSON.stringify(tenantId)},` : "";
  // Sized up front only to save growing the array; a growing one ends the same.
  const sealed: SealedEvent[] = new Array(drafts.length);
  let prevHash = head.hash;
  for (let index = 0; index < drafts.length; index++) {
    const checked = checkDraft(drafts[index]!, index);
    const seq = head.length + index;
    if ((seq === 0) !== (checked.type === "run.started")) {
      throw new YokeError("JOURNAL_INVALID_APPEND", seq === 0 ? "the first event of a run must be run.started" : "run.started may only be the first event", {
        details: { seq, type: checked.type },
      });
    }
    let canonicalData: string;
    try {
      canonicalData = canonicalJson(checked.data, { strict: true });
    } catch (error) {
      throw malformedDraft(index, checked.type, error instanceof Error ? error.message : String(error), error);
    }
    const { type, at, causationId, data } = checked;
    // canonicalJson of the envelope, written around data that is already canonical JSON
    // (keys in code-unit order, as canonicalJson sorts them); see computeEventHash.
    const body = scoped
      ? `{"at":${at},"causationId":${causationId === null ? "null" : JSON.stringify(causationId)},"data":${canonicalData},` +
        `"prevHash":${JSON.stringify(prevHash)},${runJson}"seq":${seq},${tenantJson}"type":${JSON.stringify(type)}}`
      : canonicalJson({ schemaVersion: EVENT_SCHEMA_VERSION, tenantId, runId, seq, type, at, causationId, data, prevHash });
    const hash = key === undefined ? sha256(body) : hmacSeal(key, body);
    sealed[index] = {
      event: { schemaVersion: EVENT_SCHEMA_VERSION, tenantId, runId, seq, type, at, causationId, data, prevHash, hash },
      canonicalData,
    };
    prevHash = hash;
  }
  return sealed;
}

/**
 * The envelope checks of EventDraftSchema, written out: this runs for every appended event,
 * and the data's JSON-ness is checked by the strict canonical serialization that follows.
 */
function checkDraft(draft: EventDraft, index: number): { type: string; at: number; causationId: string | null; data: Record<string, JsonValue> } {
  const candidate = draft as Partial<Record<keyof EventDraft, unknown>> | null;
  if (typeof candidate !== "object" || candidate === null) throw malformedDraft(index, undefined, "not an object");
  const { type, at, causationId = null, data } = candidate;
  if (typeof type !== "string" || !(KNOWN_TYPES.has(type) || checkType(type))) throw malformedDraft(index, type, "type must be noun.verb");
  if (typeof at !== "number" || !Number.isSafeInteger(at) || at < 0) throw malformedDraft(index, type, "at must be a non-negative integer");
  if (causationId !== null && typeof causationId !== "string") throw malformedDraft(index, type, "causationId must be a string or null");
  if (typeof data !== "object" || data === null || Array.isArray(data)) throw malformedDraft(index, type, "data must be an object");
  return { type, at, causationId, data: data as Record<string, JsonValue> };
}

// Event types already checked against EVENT_TYPE_PATTERN: a run uses a few dozen.
const KNOWN_TYPES = new Set<string>();
const KNOWN_TYPES_LIMIT = 1_024;

function checkType(type: string): boolean {
  if (!EVENT_TYPE_PATTERN.test(type)) return false;
  // The limit only bounds the cache's memory; no outcome depends on it.
  if (KNOWN_TYPES.size < KNOWN_TYPES_LIMIT) KNOWN_TYPES.add(type);
  return true;
}

function malformedDraft(index: number, type: unknown, why: string, cause?: unknown): YokeError {
  return new YokeError("JOURNAL_INVALID_APPEND", `event ${index} of the append is malformed: ${why}`, {
    details: { index, type: typeof type === "string" ? type : undefined },
    // Left out rather than `{ cause: undefined }`, though the two read the same.
    ...(cause === undefined ? {} : { cause }),
  });
}

// One-shot hashing: no Hash object per event (this runs for every append and every read).
function sha256(text: string): string {
  return oneShotHash("sha256", text, "hex");
}

type ChainFailure = Extract<VerifyResult, { ok: false }>;

/**
 * Checks one event against its expected position in the chain. Returns null when it
 * verifies, or the failure; `verify` and reads share it so neither can accept what the
 * other rejects. With `keys` (a keyed journal), the hash must be an HMAC under a key the
 * ring already holds for the tenant (see `checkEventAskingKeys`).
 */
export function checkEvent(scope: RunScope, expectedSeq: number, expectedPrevHash: string, candidate: unknown, keys?: JournalKeyRing): ChainFailure | null {
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
  if (keys !== undefined) {
    const problem = checkKeyedHash(keys, scope.tenantId, eventBody(rest), hash);
    return problem === null ? null : { ok: false, firstBadSeq: expectedSeq, ...problem };
  }
  if (hash.length !== 64) {
    return { ok: false, firstBadSeq: expectedSeq, reason: "key_required", message: "the event is sealed with an HMAC; open the journal with its keys" };
  }
  if (computeEventHash(rest) !== hash) {
    return { ok: false, firstBadSeq: expectedSeq, reason: "hash_mismatch", message: "event content does not match its hash" };
  }
  return null;
}

/**
 * The key id to ask the provider for when `failure` only means the ring does not hold the
 * key `candidate` names yet; undefined otherwise.
 */
export function missingKeyId(failure: ChainFailure | null, candidate: unknown, keys: JournalKeyRing | undefined, tenantId: string): string | undefined {
  if (failure?.reason !== "key_mismatch" || keys === undefined) return undefined;
  const hash = (candidate as { hash?: unknown }).hash;
  const keyId = typeof hash === "string" ? keyIdOf(hash) : undefined;
  // Both tests are guards: checkKeyedHash reports key_mismatch only for a hash that names a key id
  // the ring does not hold, so past the line above both always hold.
  return keyId !== undefined && keys.cached(tenantId, keyId) === undefined ? keyId : undefined;
}

/** `checkEvent` for a keyed journal, asking the provider for a key the ring does not hold yet. */
export async function checkEventAskingKeys(
  scope: RunScope,
  expectedSeq: number,
  expectedPrevHash: string,
  candidate: unknown,
  keys: JournalKeyRing,
): Promise<ChainFailure | null> {
  const failure = checkEvent(scope, expectedSeq, expectedPrevHash, candidate, keys);
  const keyId = missingKeyId(failure, candidate, keys, scope.tenantId);
  if (keyId === undefined || (await keys.lookup(scope.tenantId, keyId)) === undefined) return failure;
  return checkEvent(scope, expectedSeq, expectedPrevHash, candidate, keys);
}

/**
 * The error a read throws for a failed check: JOURNAL_CORRUPT for malformed data,
 * JOURNAL_KEY_UNAVAILABLE for an HMAC-sealed event met without keys, else
 * JOURNAL_CHAIN_BROKEN. `details.reason` is the verify reason.
 */
export function chainError(scope: RunScope, failure: ChainFailure): YokeError {
  const code = failure.reason === "malformed" ? "JOURNAL_CORRUPT" : failure.reason === "key_required" ? "JOURNAL_KEY_UNAVAILABLE" : "JOURNAL_CHAIN_BROKEN";
  return new YokeError(code, `run ${scope.runId}: event ${failure.firstBadSeq} failed verification (${failure.reason}): ${failure.message}`, {
    details: { tenantId: scope.tenantId, runId: scope.runId, seq: failure.firstBadSeq, reason: failure.reason },
  });
}

export const EMPTY_HEAD: JournalHead = { length: 0, hash: GENESIS_HASH };

/** The conflict a stale writer gets. */
export function conflictError(scope: RunScope, expectedSeq: number, actualLength: number): YokeError {
  return new YokeError("JOURNAL_CONFLICT", `run ${scope.runId}: append expected sequence ${expectedSeq} but the run has ${actualLength} events`, {
    details: { tenantId: scope.tenantId, runId: scope.runId, expectedSeq, actualSeq: actualLength },
  });
}
