import { closeSync, existsSync, fsyncSync, openSync, readFileSync, writeSync } from "node:fs";
import { YokeError, type JsonValue } from "@yoke/protocol";

/**
 * One line of the ledger: an effect applied to a resource under a key, or undone. `tenantId`:
 * the tenant whose view (`forTenant`) wrote it; absent for the unscoped ledger.
 */
export type LedgerEntry =
  | { readonly op: "apply"; readonly resource: string; readonly key: string; readonly value: JsonValue; readonly tenantId?: string }
  | { readonly op: "undo"; readonly resource: string; readonly key: string; readonly tenantId?: string };

/**
 * The world a simulated tool acts on, kept in a file outside the process under test, so it
 * survives a SIGKILL and a crash injector can count what really happened. Each entry is
 * fsync'd before the call returns.
 *
 * @example
 * ```ts
 * const ledger = createEffectLedger(join(dir, "ledger.jsonl"));
 * ledger.apply({ resource: "card:order-1", key: actionId, value: 4200 });
 * ledger.duplicates(); // 0: no key applied twice
 * ```
 */
export interface EffectLedger {
  readonly path: string;
  /**
   * Applies an effect. With `dedupe` (a service that honours idempotency keys), a key
   * already applied is not applied again and its first receipt is returned.
   */
  apply(effect: { resource: string; key: string; value: JsonValue; dedupe?: boolean }): { receipt: string; duplicate: boolean };
  /** Undoes the effect applied under `key`, once: a repeat under the same key is a no-op. */
  undo(key: string): { undone: boolean };
  /** Whether an effect under `key` was applied. */
  applied(key: string): boolean;
  entries(): LedgerEntry[];
  /** Keys applied more than once: duplicated effects. */
  duplicates(): number;
  /** Each resource's value after every apply and undo, in order (`null`: undone). */
  netState(): Record<string, JsonValue>;
  /**
   * The ledger as one tenant's service sees it, in the same file: what it applies is recorded
   * under `tenantId`; `entries`, `netState` and `duplicates` show that tenant's entries only;
   * `applied`, `undo` and a deduplicated `apply` of a key another tenant applied throw
   * TENANT_MISMATCH, so no tenant can read or undo another's effect.
   */
  forTenant(tenantId: string): EffectLedger;
}

export function createEffectLedger(path: string): EffectLedger {
  const read = (): LedgerEntry[] =>
    existsSync(path)
      ? readFileSync(path, "utf8")
          .split("\n")
          .filter((line) => line !== "")
          .map((line) => JSON.parse(line) as LedgerEntry)
      : [];
  const write = (entry: LedgerEntry) => {
    const fd = openSync(path, "a");
    try {
      writeSync(fd, `${JSON.stringify(entry)}\n`);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  };
  return ledgerView({ path, read, write }, undefined);
}

/**
 * An effect ledger held in memory (`path` is `":memory:"`), for a world that lives in one
 * process: a deterministic simulation's crash is a thrown error, not a SIGKILL, so its
 * effects need not outlive the process, and thousands of seeds need not fsync.
 *
 * @example
 * ```ts
 * const ledger = createMemoryEffectLedger();
 * ledger.apply({ resource: "card:order-1", key: actionId, value: 4200 });
 * ```
 */
export function createMemoryEffectLedger(): EffectLedger {
  const lines: string[] = [];
  // Stored as JSON text, like the file: no caller can change an entry after the fact.
  return ledgerView(
    { path: ":memory:", read: () => lines.map((line) => JSON.parse(line) as LedgerEntry), write: (entry) => lines.push(JSON.stringify(entry)) },
    undefined,
  );
}

interface LedgerStore {
  readonly path: string;
  read(): LedgerEntry[];
  write(entry: LedgerEntry): void;
}

function ledgerView(store: LedgerStore, tenantId: string | undefined): EffectLedger {
  const { path } = store;
  const all = store.read;
  const entries = (): LedgerEntry[] => (tenantId === undefined ? all() : all().filter((entry) => entry.tenantId === tenantId));
  // A scoped view refuses a key another tenant applied: it neither reads nor undoes it.
  const checkKey = (key: string) => {
    if (tenantId === undefined) return;
    const other = all().find((entry) => entry.op === "apply" && entry.key === key && entry.tenantId !== tenantId);
    if (other !== undefined) throw new YokeError("TENANT_MISMATCH", `effect ${key} belongs to another tenant`, { details: { tenantId, key } });
  };
  const own = <T extends LedgerEntry>(entry: T): T => (tenantId === undefined ? entry : { ...entry, tenantId });
  const append = store.write;
  const appliedEntry = (key: string) => entries().find((entry) => entry.op === "apply" && entry.key === key);
  return {
    path,
    apply({ resource, key, value, dedupe = false }) {
      if (dedupe) checkKey(key);
      if (dedupe && appliedEntry(key) !== undefined) return { receipt: `receipt:${key}`, duplicate: true };
      append(own({ op: "apply", resource, key, value }));
      return { receipt: `receipt:${key}`, duplicate: false };
    },
    undo(key) {
      checkKey(key);
      const mine = entries();
      const applied = mine.find((entry) => entry.op === "apply" && entry.key === key);
      if (applied === undefined || mine.some((entry) => entry.op === "undo" && entry.key === key)) return { undone: false };
      append(own({ op: "undo", resource: applied.resource, key }));
      return { undone: true };
    },
    applied: (key) => {
      checkKey(key);
      return appliedEntry(key) !== undefined;
    },
    entries,
    duplicates() {
      const counts = new Map<string, number>();
      for (const entry of entries()) if (entry.op === "apply") counts.set(entry.key, (counts.get(entry.key) ?? 0) + 1);
      return [...counts.values()].filter((count) => count > 1).length;
    },
    netState() {
      const state: Record<string, JsonValue> = {};
      for (const entry of entries()) state[entry.resource] = entry.op === "apply" ? entry.value : null;
      return state;
    },
    forTenant(tenant) {
      if (typeof tenant !== "string" || tenant === "") throw new YokeError("CONFIG_INVALID", "forTenant: tenantId must be a non-empty string");
      return ledgerView(store, tenant);
    },
  };
}
