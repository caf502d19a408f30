import type { EventDraft, JournalEvent } from "./events.js";

/** Every journal call names the tenant; there is no call that reads across tenants. */
export interface RunScope {
  readonly tenantId: string;
  readonly runId: string;
}

export interface AppendResult {
  /** Sequence number of the last appended event. */
  readonly lastSeq: number;
  /** Hash of the last appended event: the new head of the chain. */
  readonly headHash: string;
  /** The stored events, envelopes included. */
  readonly events: readonly JournalEvent[];
}

export interface JournalHead {
  /** Number of events in the run; the next append must name this as its expected sequence. */
  readonly length: number;
  /** Hash of the last event (GENESIS_HASH for an empty run). */
  readonly hash: string;
}

export type VerifyResult =
  | { readonly ok: true; readonly events: number; readonly headHash: string }
  | {
      readonly ok: false;
      /** Sequence number of the first event that fails; every event before it verified. */
      readonly firstBadSeq: number;
      readonly reason: "hash_mismatch" | "prev_hash_mismatch" | "sequence_gap" | "malformed" | "scope_mismatch";
      readonly message: string;
    };

export interface ReadOptions {
  /** First sequence number to return (inclusive). Default 0. */
  readonly fromSeq?: number;
  /** Last sequence number to return (exclusive). Default: the end. */
  readonly toSeq?: number;
}

export interface RunSummary {
  readonly tenantId: string;
  readonly runId: string;
  readonly length: number;
  readonly firstAt: number;
  readonly lastAt: number;
}

export interface JournalCapabilities {
  /** True when a resolved append survives a process crash. */
  readonly durable: boolean;
  /** True when several processes may append to one store. */
  readonly multiProcess: boolean;
}

/**
 * An append-only, per-run, hash-chained event log.
 *
 * - `append(scope, expectedSeq, drafts)` stores `drafts` as one transaction at sequence
 *   numbers `expectedSeq, expectedSeq + 1, …`. If the run does not have exactly
 *   `expectedSeq` events, it rejects with JOURNAL_CONFLICT (a stale writer) and writes
 *   nothing. When the promise resolves, the events are durable to the store's promise
 *   (`capabilities.durable`). The first event of a run (expectedSeq 0) must be
 *   `run.started`; appending seq 0 to an existing run is JOURNAL_CONFLICT.
 * - `read` streams events in sequence order, checking each event's integrity as it goes;
 *   a torn or edited event rejects with JOURNAL_CORRUPT or JOURNAL_CHAIN_BROKEN, never
 *   yields it.
 * - `verify` walks the whole chain and names the first bad event instead of throwing.
 *
 * @example
 * ```ts
 * const scope = { tenantId: "tenant_a", runId: "run_1" };
 * await journal.append(scope, 0, [{ type: "run.started", at: clock.now(), data: {...} }]);
 * for await (const event of journal.read(scope)) console.log(event.seq, event.type);
 * const report = await journal.verify(scope); // { ok: true, events: 1, headHash }
 * ```
 */
export interface JournalV1 {
  readonly specificationVersion: "v1";
  readonly capabilities: JournalCapabilities;
  append(scope: RunScope, expectedSeq: number, drafts: readonly EventDraft[]): Promise<AppendResult>;
  read(scope: RunScope, options?: ReadOptions): AsyncIterable<JournalEvent>;
  /** The run's length and head hash; `null` when the run does not exist for this tenant. */
  head(scope: RunScope): Promise<JournalHead | null>;
  verify(scope: RunScope): Promise<VerifyResult>;
  /** The tenant's runs, ordered by run id. */
  listRuns(tenantId: string): AsyncIterable<RunSummary>;
  close(): Promise<void>;
}
