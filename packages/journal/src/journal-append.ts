import {
  YokeError,
  type AppendOptions,
  type AppendResult,
  type EventDraft,
  type JournalEvent,
  type JournalHead,
  type RunScope,
  type VerifyResult,
} from "@yoke/protocol";
import { drive, isThenable, settle, type Steps } from "./awaitable.js";
import { EMPTY_HEAD, chainError, conflictError, sealDrafts } from "./chain.js";
import { checkStoredEvent, firstOf } from "./chain-walk.js";
import { checkEventSizes } from "./event-size.js";
import type { JournalDriver, JournalDriverTransaction } from "./journal-driver.js";
import { HeadCache } from "./head-cache.js";
import type { ChainKey, JournalKeyRing } from "./keyed-chain.js";
import { appendLeaseNeedsTime, checkAppendLease } from "./lease-rules.js";
import { LONE_SURROGATE, storable } from "./scope-text.js";
import { truncatedFailure, unwitnessedError, witnessFailureError } from "./witness-rules.js";

/** A run head the append transaction could not check yet: its key is not in the ring. */
type UnverifiedHead = Extract<VerifyResult, { ok: false }> & { readonly missingKeyId: string };

/** What an append needs of the journal around it. */
export interface AppendContext {
  readonly driver: JournalDriver;
  readonly keys: JournalKeyRing | undefined;
  readonly maxEventBytes: number;
  assertOpen(): void;
  assertWritable(operation: string): void;
}

interface AppendRequest {
  readonly scope: RunScope;
  readonly expectedSeq: number;
  readonly drafts: readonly EventDraft[];
  readonly options: AppendOptions | undefined;
  readonly key: ChainKey | undefined;
}

/**
 * The journal's `append`: the lease check, the head (cached or stored), the witness and
 * conflict checks, the keyed head check, sealing and the size limit, all in one driver write
 * transaction; then the head witness line, after the commit and before the append resolves.
 */
export function createAppend(
  context: AppendContext,
): (scope: RunScope, expectedSeq: number, drafts: readonly EventDraft[], options?: AppendOptions) => Promise<AppendResult> {
  const { driver, keys, assertOpen, assertWritable } = context;
  const heads = new HeadCache();
  const transaction = (request: AppendRequest) => driver.write((tx) => drive(appendSteps(context, heads, tx, request)));

  return async (scope, expectedSeq, drafts, options) => {
    assertWritable("append");
    if (!storable(scope)) {
      throw new YokeError("JOURNAL_INVALID_APPEND", "tenantId and runId must be well-formed Unicode strings", {
        details: { runId: String(scope.runId) },
      });
    }
    const key = keys === undefined ? undefined : await keys.sealingKey(scope.tenantId);
    // Only the await above can let a close in: without a key ring there is none, and the
    // assertOpen of assertWritable, in the same synchronous step, already ran.
    if (key !== undefined) assertOpen();
    const request: AppendRequest = { scope, expectedSeq, drafts, options, key };
    let events: JournalEvent[];
    try {
      const first = transaction(request);
      let outcome = isThenable(first) ? await first : first;
      // The head names a key the ring has not resolved yet: ask the provider (outside the write
      // lock), then try once more; a head still unverifiable is refused.
      if (!Array.isArray(outcome)) {
        const asked = await (keys as JournalKeyRing).lookup(scope.tenantId, outcome.missingKeyId);
        assertOpen();
        if (asked === undefined) throw chainError(scope, outcome);
        const second = transaction(request);
        outcome = isThenable(second) ? await second : second;
        if (!Array.isArray(outcome)) throw chainError(scope, outcome);
      }
      events = outcome;
    } catch (error) {
      // The head cache only saves a query: an entry is used only at its own length, and a stale one
      // then meets the stored row of that seq, a conflict either way. Forgetting (and setting,
      // below) keep it fresh; neither changes an outcome.
      heads.forget(scope);
      if (!driver.isDuplicateEvent(error)) throw driver.toJournalError(error, "append");
      // Another connection stored this sequence number since this journal last saw the run. The
      // length is for the conflict's details; should even the head read fail (no test makes it),
      // expectedSeq + 1 is the least the run now has.
      let actual: number;
      try {
        const stored = driver.head(scope);
        actual = (isThenable(stored) ? await stored : stored)?.length ?? expectedSeq + 1;
      } catch {
        actual = expectedSeq + 1;
      }
      throw conflictError(scope, expectedSeq, actual);
    }
    const last = events.at(-1) as JournalEvent;
    const head = { length: last.seq + 1, hash: last.hash };
    heads.set(scope, head);
    if (driver.witness !== null) {
      try {
        // Awaited only when pending: a synchronous witness line follows the commit with nothing in between.
        const recorded = driver.witness.record(scope, head);
        if (isThenable(recorded)) await recorded;
      } catch (error) {
        // The events are durable; only the witness line is missing, which leaves it behind, never wrong.
        // A witness deleted or replaced after open is JOURNAL_WITNESS_INVALID; a write the file system
        // refused (a full disk) is JOURNAL_UNAVAILABLE saying the events are committed (both tested).
        throw unwitnessedError(scope, last.seq, driver.toJournalError(error, "record the head witness"));
      }
    }
    return { lastSeq: last.seq, headHash: last.hash, events };
  };
}

function* appendSteps(context: AppendContext, heads: HeadCache, tx: JournalDriverTransaction, request: AppendRequest): Steps<JournalEvent[] | UnverifiedHead> {
  const { driver, keys, maxEventBytes } = context;
  const { scope, expectedSeq, drafts, options, key } = request;
  const current = yield* settle(tx.lease(scope));
  // The store's time is read only when the check needs it (a lease-less append meeting an unreleased lease).
  const now = appendLeaseNeedsTime(current, options) ? yield* settle(tx.now()) : Number.NaN;
  checkAppendLease(scope, current, options, () => now);
  const cached = heads.get(scope);
  // A head this journal sealed itself is trusted; any other is checked below before it is extended.
  const own = cached?.length === expectedSeq;
  const head: JournalHead = own ? cached : ((yield* settle(tx.head(scope))) ?? EMPTY_HEAD);
  const witnessed = driver.witness === null ? undefined : yield* settle(driver.witness.expected(scope));
  if (witnessed !== undefined && head.length < witnessed.length) {
    throw witnessFailureError(scope, truncatedFailure(head.length, witnessed.length), (driver.witness as { location: string }).location);
  }
  if (expectedSeq !== head.length) throw conflictError(scope, expectedSeq, head.length);
  if (key !== undefined && !own && head.length > 0) {
    // A keyed journal never extends a head it cannot verify: one sealed with other key material
    // under the same key id would leave the run unreadable to the real key holder.
    const stored = firstOf(yield* settle(tx.readPage(scope, head.length - 1, head.length, 1)));
    const failure = checkStoredEvent(scope, head.length - 1, stored, keys as JournalKeyRing);
    if (failure?.missingKeyId !== undefined) return failure as UnverifiedHead;
    if (failure !== null) throw chainError(scope, failure);
  }
  const sealed = sealDrafts(scope, head, drafts, key);
  checkEventSizes(scope, sealed, maxEventBytes);
  const events: JournalEvent[] = new Array(sealed.length); // preallocated; a growing array ends the same
  for (let index = 0; index < sealed.length; index++) {
    const { event } = sealed[index]!;
    if (event.causationId !== null && LONE_SURROGATE.test(event.causationId)) {
      throw new YokeError("JOURNAL_INVALID_APPEND", `event ${event.seq}: causationId is not well-formed Unicode`, {
        details: { seq: event.seq },
      });
    }
    events[index] = event;
  }
  yield* settle(tx.insertEvents(sealed));
  return events;
}
