import { GENESIS_HASH, type JournalEvent, type RunScope, type VerifyResult } from "@yoke/protocol";
import { isThenable, type Awaitable } from "./awaitable.js";
import { checkEvent, missingKeyId } from "./chain.js";
import type { StoredEvent } from "./journal-driver.js";
import type { JournalKeyRing } from "./keyed-chain.js";

type ChainFailure = Extract<VerifyResult, { ok: false }>;

/** Rows per page: a long run is read in bounded memory, and no statement stays open between pages. */
export const READ_PAGE_SIZE = 256;

/**
 * One step of a chain walk: a verified event, or the first failure (nothing follows it), or
 * something to wait for (a key the provider is being asked for, or an asynchronous driver's
 * read): await `pending`, hand its value to the walk's `next`, then go on.
 */
export type ChainStep =
  | { readonly event: JournalEvent; readonly failure?: undefined; readonly pending?: undefined }
  | { readonly failure: ChainFailure; readonly pending?: undefined }
  | { readonly pending: PromiseLike<unknown>; readonly failure?: undefined };

/** The reads a chain walk needs: a driver outside a transaction, or one inside it. */
export interface ChainReader {
  hashAt(scope: RunScope, seq: number): Awaitable<string | null>;
  hasEventFrom(scope: RunScope, seq: number): Awaitable<boolean>;
  readPage(scope: RunScope, fromSeq: number, toSeq: number, limit: number): Awaitable<Iterable<StoredEvent>>;
}

/**
 * Walks `[fromSeq, toSeq)` page by page, checking every event against its predecessor's
 * hash with the same `checkEvent` the memory store uses. Stops at the first failure.
 * `beforePage` runs before each query (the journal's closed check). With `keys`, a key id
 * the ring does not hold yet is looked up (a `pending` step) and the event checked again.
 * A synchronous reader yields no `pending` steps of its own.
 */
export function* walkChain(
  reader: ChainReader,
  scope: RunScope,
  fromSeq: number,
  toSeq: number,
  beforePage: () => void,
  keys?: JournalKeyRing,
): Generator<ChainStep, void, unknown> {
  let prevHash = GENESIS_HASH;
  if (fromSeq > 0) {
    // The journal's read checked that it is open in this same synchronous step: this check keeps
    // the walk safe for other callers.
    beforePage();
    const predecessor = yield* settled(reader.hashAt(scope, fromSeq - 1));
    if (predecessor === null) {
      if (yield* settled(reader.hasEventFrom(scope, fromSeq))) {
        yield { failure: failure(fromSeq - 1, "sequence_gap", `event ${fromSeq - 1} is missing`) };
      }
      return;
    }
    prevHash = predecessor;
  }
  let expected = fromSeq;
  // `<`, not `<=`: after a full page ending exactly at toSeq there is nothing left to ask for.
  while (expected < toSeq) {
    beforePage();
    const rows = yield* settled(reader.readPage(scope, expected, toSeq, READ_PAGE_SIZE));
    let count = 0;
    for (const event of rows) {
      count++;
      let problem = typeof event === "string" ? failure(expected, "malformed", event) : checkEvent(scope, expected, prevHash, event, keys);
      // `keys === undefined` only saves a call: missingKeyId returns undefined without keys.
      const keyId = keys === undefined ? undefined : missingKeyId(problem, event, keys, scope.tenantId);
      if (keyId !== undefined) {
        yield { pending: (keys as JournalKeyRing).lookup(scope.tenantId, keyId) };
        problem = checkEvent(scope, expected, prevHash, event, keys);
      }
      if (problem) {
        yield { failure: problem };
        return;
      }
      yield { event: event as JournalEvent };
      prevHash = (event as JournalEvent).hash;
      expected++;
    }
    if (count < READ_PAGE_SIZE) return;
  }
}

/**
 * The run's event at `seq` checked on its own: its shape, scope and seq, and (with `keys`)
 * its MAC, against its own stored predecessor hash. Null when it verifies; a failure whose
 * `missingKeyId` is set means the ring does not hold the key the event names yet.
 */
export function checkStoredEvent(
  scope: RunScope,
  seq: number,
  stored: StoredEvent | undefined,
  keys: JournalKeyRing,
): (ChainFailure & { missingKeyId?: string }) | null {
  if (stored === undefined) return failure(seq, "sequence_gap", `event ${seq} is missing`);
  if (typeof stored === "string") return failure(seq, "malformed", stored);
  const problem = checkEvent(scope, seq, String(stored.prevHash), stored, keys);
  const keyId = missingKeyId(problem, stored, keys, scope.tenantId);
  return problem === null ? null : keyId === undefined ? problem : { ...problem, missingKeyId: keyId };
}

/** The first stored event of `rows`, or undefined. */
export function firstOf(rows: Iterable<StoredEvent>): StoredEvent | undefined {
  for (const row of rows) return row;
  return undefined;
}

function* settled<T>(value: Awaitable<T>): Generator<ChainStep, T, unknown> {
  if (!isThenable(value)) return value;
  return (yield { pending: value }) as T;
}

function failure(firstBadSeq: number, reason: ChainFailure["reason"], message: string): ChainFailure {
  return { ok: false, firstBadSeq, reason, message };
}
