// Type tests of @yoke/journal's public entry, checked by the package's `tsc`.
import type { JournalEvent, JournalHead, JournalV1, RunLeasesV1 } from "@yoke/protocol";
import { expectTypeOf } from "vitest";
import {
  computeEventHash,
  createJournal,
  createLazySqliteJournal,
  createMemoryJournal,
  createSqliteJournal,
  type DriverJournal,
  type JournalDriver,
  type LazySqliteJournal,
  type SqliteJournal,
  type SqliteJournalOptions,
} from "./index.js";

// Every store is a JournalV1; the SQLite store opens asynchronously, the lazy one does not.
expectTypeOf(createMemoryJournal()).toExtend<JournalV1>();
expectTypeOf(createSqliteJournal({ filename: "yoke.db" })).toEqualTypeOf<Promise<SqliteJournal>>();
expectTypeOf<SqliteJournal>().toExtend<JournalV1>();
expectTypeOf<SqliteJournal["leases"]>().toEqualTypeOf<RunLeasesV1>();
expectTypeOf(createLazySqliteJournal({ filename: "yoke.db" })).toEqualTypeOf<LazySqliteJournal>();
expectTypeOf<LazySqliteJournal>().toExtend<JournalV1>();
expectTypeOf<LazySqliteJournal["open"]>().returns.toEqualTypeOf<Promise<void>>();
// The lazy journal takes the SQLite options, but only with a filename.
expectTypeOf(createLazySqliteJournal).parameter(0).toExtend<SqliteJournalOptions>();
// @ts-expect-error a lazy journal opens a file it names
createLazySqliteJournal({ synchronous: "normal" });

// The chain hash of an event is computed over the event without its hash.
expectTypeOf(computeEventHash).parameter(0).toEqualTypeOf<Omit<JournalEvent, "hash">>();
expectTypeOf(computeEventHash).returns.toEqualTypeOf<string>();

// A store of one's own: a driver under the shared semantics is a JournalV1 with leases.
expectTypeOf(createJournal).parameter(0).toHaveProperty("driver").toEqualTypeOf<JournalDriver>();
expectTypeOf(createJournal).returns.toEqualTypeOf<DriverJournal>();
expectTypeOf<DriverJournal>().toExtend<JournalV1>();
expectTypeOf<DriverJournal["leases"]>().toEqualTypeOf<RunLeasesV1>();
expectTypeOf<SqliteJournal>().toExtend<DriverJournal>();
// A driver may answer synchronously or with a promise.
expectTypeOf<ReturnType<JournalDriver["head"]>>().toEqualTypeOf<JournalHead | null | PromiseLike<JournalHead | null>>();
