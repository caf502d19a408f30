import {
  EVENT_SCHEMA_VERSION,
  GENESIS_HASH,
  YokeError,
  type EventDraft,
  type JournalEvent,
  type JournalV1,
  type RunScope,
  type YokeErrorCode,
} from "@yoke/protocol";
import { expect } from "vitest";
import { afterEach, beforeEach } from "./contract-recorder.js";

/** What a contract suite's factory returns: a fresh, empty store and how to dispose of it. */
export interface JournalContractStore {
  readonly journal: JournalV1;
  /** Runs after the suite has closed the journal (delete temp files, drop schemas). */
  readonly cleanup?: () => Promise<void> | void;
  /**
   * Makes this store's storage refuse the write of event `seq` of `scope` from now on (a
   * database trigger, a full disk, a failing network), for the case that checks a batch
   * refused part-way through its writes stores nothing. A store that cannot arrange it omits
   * this; the case then refuses the batch with a malformed draft at the same position.
   */
  readonly refuseWriteAt?: (scope: RunScope, seq: number) => Promise<void> | void;
}

export type JournalStoreFactory = () => Promise<JournalContractStore> | JournalContractStore;

/** The store of the test that is running; a fresh one per test. */
export interface StoreContext {
  readonly journal: JournalV1;
  /** The store's `refuseWriteAt`, when its factory gave one. */
  readonly refuseWriteAt?: ((scope: RunScope, seq: number) => Promise<void> | void) | undefined;
}

export function useFreshStore(makeStore: JournalStoreFactory): StoreContext {
  let store: JournalContractStore | undefined;
  beforeEach(async () => {
    store = await makeStore();
  });
  afterEach(async () => {
    const current = store;
    store = undefined;
    if (!current) return;
    try {
      await current.journal.close();
    } finally {
      await current.cleanup?.();
    }
  });
  return {
    get journal(): JournalV1 {
      if (!store) throw new YokeError("INTERNAL", "the journal contract's store is only available inside a test");
      return store.journal;
    },
    get refuseWriteAt() {
      return store?.refuseWriteAt;
    },
  };
}

export function scopeOf(runId: string, tenantId = "tenant_a"): RunScope {
  return { tenantId, runId };
}

export async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

/** Awaits `action` and asserts it rejected with a YokeError of `code`; returns the error. */
export async function expectYokeError(action: Promise<unknown>, code: YokeErrorCode): Promise<YokeError> {
  let caught: unknown;
  let resolved = false;
  try {
    await action;
    resolved = true;
  } catch (error) {
    caught = error;
  }
  expect(resolved, `expected a ${code} rejection, but the call resolved`).toBe(false);
  expect(YokeError.isInstance(caught), `expected a YokeError ${code}, got ${String(caught)}`).toBe(true);
  expect((caught as YokeError).code).toBe(code);
  return caught as YokeError;
}

/** The event a store must produce for `draft` at `seq` (everything but the hashes). */
export function expectedEnvelope(scope: RunScope, seq: number, draft: EventDraft): Omit<JournalEvent, "hash" | "prevHash"> {
  return {
    schemaVersion: EVENT_SCHEMA_VERSION,
    tenantId: scope.tenantId,
    runId: scope.runId,
    seq,
    type: draft.type,
    at: draft.at,
    causationId: draft.causationId ?? null,
    data: draft.data as JournalEvent["data"],
  };
}

/** Asserts `events` are `drafts` stored from seq 0 with an unbroken hash chain. */
export function expectChain(scope: RunScope, events: readonly JournalEvent[], drafts: readonly EventDraft[]): void {
  expect(events.map((event) => event.seq)).toEqual(drafts.map((_, seq) => seq));
  let prevHash = GENESIS_HASH;
  events.forEach((event, seq) => {
    const { hash, prevHash: storedPrevHash, ...envelope } = event;
    expect(envelope).toEqual(expectedEnvelope(scope, seq, drafts[seq] as EventDraft));
    expect(storedPrevHash).toBe(prevHash);
    expect(hash).toMatch(CHAIN_HASH);
    prevHash = hash;
  });
}

/** SHA-256 (unkeyed) or `hmac-sha256:<keyId>:<hex>` (keyed): see `ChainHashSchema`. */
const CHAIN_HASH = /^(?:hmac-sha256:[A-Za-z0-9._-]{1,64}:)?[0-9a-f]{64}$/;

/** A unique run id per call, so one store can serve many property iterations. */
export function runIdSource(prefix: string): () => string {
  let next = 0;
  return () => `${prefix}_${String(next++).padStart(6, "0")}`;
}
