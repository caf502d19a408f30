import { YokeError, type JournalV1, type RunLeasesV1 } from "@yoke/protocol";

/**
 * Where an in-process crash strikes: at the `append`-th append (1-based), which is either
 * `lost` (never written) or `written` (durable, but the writer dies before it learns so).
 */
export interface InProcessCrash {
  readonly append: number;
  readonly mode: "lost" | "written";
}

/** The error a crashed journal throws: the process that held it "died" there. */
export function simulatedCrash(crash: InProcessCrash): YokeError<"INTERNAL"> {
  return new YokeError("INTERNAL", `simulated crash at append ${crash.append} (${crash.mode})`, { details: { simulatedCrash: true, ...crash } });
}

/** Whether `error` is the crash a `crashingJournal` threw. */
export function isSimulatedCrash(error: unknown): boolean {
  return YokeError.hasCode(error, "INTERNAL") && error.details.simulatedCrash === true;
}

/**
 * `journal` as a process that dies at `crash` sees it: appends pass until the crash, which
 * throws (after writing, when `written`); from then on every call (reads, leases included)
 * throws too, as a dead process makes none. A fresh harness on `journal` itself is the
 * process that comes back.
 *
 * @example
 * ```ts
 * const journal = createMemoryJournal({ clock });
 * const dying = crashingJournal(journal, { append: 4, mode: "written" });
 * await harness(dying).start(task).catch((error) => { if (!isSimulatedCrash(error)) throw error; });
 * await harness(journal).resume(runId);
 * ```
 */
export function crashingJournal(journal: JournalV1, crash: InProcessCrash): JournalV1 & { readonly crashed: boolean } {
  let appends = 0;
  let dead = false;
  const alive = () => {
    if (dead) throw simulatedCrash(crash);
  };
  const whileAlive =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      alive();
      return call(...args);
    };
  const leases: RunLeasesV1 | undefined =
    journal.leases === undefined
      ? undefined
      : {
          acquire: whileAlive((scope, request) => journal.leases!.acquire(scope, request)),
          renew: whileAlive((lease, ttlMs) => journal.leases!.renew(lease, ttlMs)),
          release: whileAlive((lease) => journal.leases!.release(lease)),
          current: whileAlive((scope) => journal.leases!.current(scope)),
        };
  return {
    specificationVersion: journal.specificationVersion,
    capabilities: journal.capabilities,
    get crashed() {
      return dead;
    },
    ...(leases === undefined ? {} : { leases }),
    async append(scope, expectedSeq, drafts, options) {
      alive();
      appends += 1;
      if (appends === crash.append) {
        dead = true;
        if (crash.mode === "written") await journal.append(scope, expectedSeq, drafts, options);
        throw simulatedCrash(crash);
      }
      return journal.append(scope, expectedSeq, drafts, options);
    },
    async *read(scope, options) {
      alive();
      yield* journal.read(scope, options);
    },
    head: whileAlive((scope) => journal.head(scope)),
    verify: whileAlive((scope) => journal.verify(scope)),
    async *listRuns(tenantId) {
      alive();
      yield* journal.listRuns(tenantId);
    },
    close: () => journal.close(),
  };
}
