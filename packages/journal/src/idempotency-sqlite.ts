import { YokeError, canonicalJson, type IdempotencyClaim, type IdempotencyOutcome, type IdempotencyStoreV1 } from "@yoke/protocol";
import { Kysely, SqliteDialect } from "kysely";
import { DEFAULT_BUSY_TIMEOUT_MS, applyPragmas, openDatabaseFile, type SqliteDatabaseLike } from "./sqlite-database.js";
import { toJournalError } from "./sqlite-errors.js";
import type { JournalTables } from "./sqlite-migrations.js";
import { ensureSchema } from "./sqlite-schema.js";

export type SqliteIdempotencyStoreOptions = (
  | { readonly filename: string; readonly database?: undefined }
  | { readonly database: SqliteDatabaseLike; readonly filename?: undefined }
) & {
  /** How long a claim waits for another process's lock before JOURNAL_UNAVAILABLE. Default 5000. */
  readonly busyTimeoutMs?: number;
};

interface RecordRow {
  argument_digest: string;
  claimed_at: number;
  outcome: string | null;
}

/**
 * Idempotency records in a SQLite journal file (its `idempotency_records` table, layout 2),
 * so a key's outcome is as durable as the events beside it. Each claim is one
 * `BEGIN IMMEDIATE` transaction: of concurrent claims on a fresh key, in this process or
 * another, exactly one wins. Opening migrates a layout-1 journal file in place.
 *
 * @example
 * ```ts
 * const store = await createSqliteIdempotencyStore({ filename: "yoke.db" });
 * const claim = await store.claim({ tenantId: "t", key: "action_1", argumentDigest, now: Date.now(), leaseMs: 30_000 });
 * ```
 */
export async function createSqliteIdempotencyStore(options: SqliteIdempotencyStoreOptions): Promise<IdempotencyStoreV1> {
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  const owned = options.database === undefined;
  const db = options.database ?? (await openDatabaseFile(options.filename as string, busyTimeoutMs));
  try {
    applyPragmas(db, "full", busyTimeoutMs);
    await ensureSchema(new Kysely<JournalTables>({ dialect: new SqliteDialect({ database: db }) }), db, {
      readOnly: false,
      allowInit: true,
      beforeInit: () => undefined,
      describe: db.name,
    });
  } catch (error) {
    if (owned && db.open) db.close();
    throw toJournalError(error, "open the idempotency store");
  }
  const select = db.prepare("SELECT argument_digest, claimed_at, outcome FROM idempotency_records WHERE tenant_id = ? AND key = ?");
  const insert = db.prepare("INSERT INTO idempotency_records (tenant_id, key, argument_digest, claimed_at) VALUES (?, ?, ?, ?)");
  const reclaim = db.prepare("UPDATE idempotency_records SET claimed_at = ? WHERE tenant_id = ? AND key = ? AND outcome IS NULL");
  const finish = db.prepare(
    "UPDATE idempotency_records SET outcome = ?, completed_at = ? WHERE tenant_id = ? AND key = ? AND argument_digest = ? AND outcome IS NULL",
  );
  const claimTransaction = db.transaction((tenantId: string, key: string, digest: string, now: number, leaseMs: number): IdempotencyClaim => {
    const row = select.get(tenantId, key) as RecordRow | undefined;
    if (row === undefined) {
      insert.run(tenantId, key, digest, now);
      return { kind: "claimed", reclaimed: false };
    }
    if (row.argument_digest !== digest) return { kind: "mismatch", storedDigest: row.argument_digest };
    if (row.outcome !== null) return { kind: "completed", outcome: JSON.parse(row.outcome) as IdempotencyOutcome };
    if (row.claimed_at + leaseMs <= now) {
      reclaim.run(now, tenantId, key);
      return { kind: "claimed", reclaimed: true };
    }
    return { kind: "in_progress", claimedAt: row.claimed_at };
  });
  let closed = false;
  const open = () => {
    if (closed) throw new YokeError("JOURNAL_CLOSED", "the idempotency store is closed");
  };
  return {
    specificationVersion: "v1",
    async claim({ tenantId, key, argumentDigest, now, leaseMs }) {
      open();
      try {
        return claimTransaction.immediate(tenantId, key, argumentDigest, now, leaseMs) as IdempotencyClaim;
      } catch (error) {
        throw toJournalError(error, "claim an idempotency key");
      }
    },
    async complete({ tenantId, key, argumentDigest, outcome, now }) {
      open();
      try {
        finish.run(canonicalJson(outcome), now, tenantId, key, argumentDigest);
      } catch (error) {
        throw toJournalError(error, "complete an idempotency key");
      }
    },
    async close() {
      // Without this line a second close changes nothing either (`db.open` is false by then, or the
      // Database is the caller's): it only says so.
      if (closed) return;
      closed = true;
      if (owned && db.open) db.close();
    },
  };
}
