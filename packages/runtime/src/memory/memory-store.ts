import { YokeError } from "@yoke/protocol";

/** How long a memory lasts and who sees it: this run, this session (its runs), or the whole tenant. */
export type MemoryScope = "run" | "session" | "tenant";

/** Where one memory lives: the tenant, the scope, the id of the scope's owner (run, session or tenant id) and the key. */
export interface MemoryAddress {
  readonly tenantId: string;
  readonly scope: MemoryScope;
  readonly scopeId: string;
  readonly key: string;
}

/** One memory: its address, content, the action that wrote it, when, and until when (null: no expiry). */
export interface MemoryRecord extends MemoryAddress {
  readonly content: string;
  readonly writtenBy: string;
  readonly writtenAt: number;
  readonly expiresAt: number | null;
}

/**
 * Where the `remember` tools keep memories. Every call names its tenant; a store never
 * returns a record of another tenant. `now` is the caller's clock: a record whose
 * `expiresAt` is not after `now` is gone.
 *
 * @example
 * ```ts
 * const store = createMemoryStore();
 * await store.put({ tenantId: "acme", scope: "tenant", scopeId: "acme", key: "tone", content: "formal", writtenBy: "action_1", writtenAt: 0, expiresAt: null });
 * (await store.get({ tenantId: "acme", scope: "tenant", scopeId: "acme", key: "tone" }, 1))?.content; // "formal"
 * ```
 */
export interface MemoryStore {
  put(record: MemoryRecord): Promise<void>;
  get(address: MemoryAddress, now: number): Promise<MemoryRecord | undefined>;
  /** Removes the record; true when there was a live one. */
  delete(address: MemoryAddress, now: number): Promise<boolean>;
  /**
   * Whether `actionId` wrote a record that is still there: what reconciliation asks after a
   * crash (an action id names one action of one run, so it needs no tenant).
   */
  writtenBy(actionId: string, now: number): Promise<MemoryRecord | undefined>;
}

/** A memory store in this process's memory. */
export function createMemoryStore(): MemoryStore {
  const records = new Map<string, MemoryRecord>();
  const id = (address: MemoryAddress) => JSON.stringify([address.tenantId, address.scope, address.scopeId, address.key]);
  const live = (record: MemoryRecord | undefined, now: number) =>
    record !== undefined && (record.expiresAt === null || record.expiresAt > now) ? record : undefined;
  return {
    async put(record) {
      if (typeof record?.tenantId !== "string" || record.tenantId === "") throw new YokeError("CONFIG_INVALID", "memory: a record needs a tenant");
      records.set(id(record), Object.freeze({ ...record }));
    },
    async get(address, now) {
      return live(records.get(id(address)), now);
    },
    async delete(address, now) {
      const existed = live(records.get(id(address)), now) !== undefined;
      records.delete(id(address));
      return existed;
    },
    async writtenBy(actionId, now) {
      for (const record of records.values()) if (record.writtenBy === actionId && live(record, now)) return record;
      return undefined;
    },
  };
}
