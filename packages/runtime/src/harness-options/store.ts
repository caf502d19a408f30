import type { ArtifactStoreV2, JournalV1 } from "@yoke/protocol";
import type { LeaseOptions } from "../run-lease.js";

/**
 * Where a harness keeps what it must not forget: the journal every run is folded from, the
 * tenant every read and write is scoped by, the lease that makes one process a run's only
 * writer, and the store large tool outputs go to. One of the groups `HarnessOptions` is
 * composed of: its members are written flat in `createHarness`'s options, like every other.
 *
 * @example
 * ```ts
 * const store: HarnessStoreOptions = {
 *   journal: "./yoke.sqlite",
 *   tenantId: "tenant_a",
 *   lease: { ttlMs: 60_000 },
 *   artifacts: createFileArtifactStore({ directory: "runs/artifacts" }),
 * };
 * const harness = createHarness({ ...store, provider });
 * ```
 */
export interface HarnessStoreOptions {
  /**
   * Default: a new in-memory journal (`createMemoryJournal()`): runs last as long as the
   * process. Pass a SQLite journal to survive a restart, or just its path: `"./yoke.sqlite"`
   * opens a SQLite journal there on first use, and `harness.close()` closes it. Only `start`
   * (and `startOrResume` with `createJournal: true`) creates a missing file; every other call
   * on a path with no journal is JOURNAL_NOT_INITIALIZED and leaves nothing behind. A path needs the optional peer `better-sqlite3` (DEPENDENCY_MISSING names it
   * on first use when it is not installed); an open failure is the typed error of the
   * harness call that needed the journal.
   */
  journal?: JournalV1 | string;
  /** Default `"default"`, for single-tenant use. Every journal read and write is scoped by it. */
  tenantId?: string;
  /**
   * Run ownership, when the journal offers leases (both Yoke stores do): `start` and `resume`
   * take the run's lease first, renew it while they run and release it when they return; every
   * append carries it and every tool gets its fencing token (`context.fencingToken`). An
   * `executing` attempt left by another process is only reconciled once that process's lease
   * has lapsed (or its process is gone). `false` takes no lease. Default: see `LeaseOptions`.
   */
  lease?: LeaseOptions | false;
  /**
   * Where tool results larger than `maxEventOutputBytes` go, content-addressed and scoped to
   * the run's tenant (see `createFileArtifactStore` in @yoke/journal). Each is stored once per
   * tenant and is durable before the event that references it; pass the same store to
   * `reconstructRequest`, which reads as the run's tenant. Default: none.
   */
  artifacts?: ArtifactStoreV2;
}
