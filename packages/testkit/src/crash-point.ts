import { closeSync, fsyncSync, openSync, writeSync } from "node:fs";
import type { JournalV1 } from "@yoke/protocol";

/**
 * Where, around one durable append, a crash injector kills the process:
 * - `before-write`: the append is never made;
 * - `after-write`: the append is durable, but the caller never learns it;
 * - `after-resolve`: the caller has its answer and runs on until the next event-loop turn
 *   (a tool dispatched right after the commit may have started its effect).
 */
export const KILL_POINTS = ["before-write", "after-write", "after-resolve"] as const;
export type KillPoint = (typeof KILL_POINTS)[number];

/** Kill the process at append number `append` (1-based), at `point`. */
export interface CrashPlan {
  readonly append: number;
  readonly point: KillPoint;
}

/** Environment variables a crash injector passes to the scenario process. */
export const CRASH_PLAN_ENV = "YOKE_CRASH_PLAN";
export const ACK_LOG_ENV = "YOKE_ACK_LOG";

/** The plan a crash injector gave this process (`YOKE_CRASH_PLAN=3:after-write`), if any. */
export function crashPlanFromEnv(env: NodeJS.ProcessEnv = process.env): CrashPlan | undefined {
  const raw = env[CRASH_PLAN_ENV];
  if (raw === undefined || raw === "") return undefined;
  const [append, point] = raw.split(":");
  if (!KILL_POINTS.includes(point as KillPoint) || !Number.isInteger(Number(append))) return undefined;
  return { append: Number(append), point: point as KillPoint };
}

export interface CrashingJournal extends JournalV1 {
  /** Appends this process made. */
  readonly appends: number;
}

/**
 * Wraps the journal of a scenario process for a crash injector: counts appends, records each
 * acknowledged append (sequence number and head hash, fsync'd) in the ack log, and kills the
 * process with SIGKILL where `plan` says. Without a plan it only counts and records.
 *
 * @example
 * ```ts
 * // scenario.ts, run by runCrashInjector in a child process
 * const journal = crashInjection(await createSqliteJournal({ filename }));
 * ```
 */
export function crashInjection(
  journal: JournalV1,
  options: { plan?: CrashPlan | undefined; ackLog?: string | undefined; kill?: () => void } = {},
): CrashingJournal {
  const plan = "plan" in options ? options.plan : crashPlanFromEnv();
  const ackLog = "ackLog" in options ? options.ackLog : process.env[ACK_LOG_ENV];
  const kill = options.kill ?? (() => process.kill(process.pid, "SIGKILL"));
  let appends = 0;
  return {
    specificationVersion: journal.specificationVersion,
    capabilities: journal.capabilities,
    get appends() {
      return appends;
    },
    // The run's lease passes through untouched: a killed owner's lease is what a resume must get past.
    ...(journal.leases === undefined ? {} : { leases: journal.leases }),
    async append(scope, expectedSeq, drafts, appendOptions) {
      const number = appends + 1;
      const here = (point: KillPoint) => plan !== undefined && plan.append === number && plan.point === point;
      if (here("before-write")) kill();
      const result = await journal.append(scope, expectedSeq, drafts, appendOptions);
      appends = number;
      if (here("after-write")) kill();
      if (ackLog !== undefined) {
        const fd = openSync(ackLog, "a");
        try {
          writeSync(fd, `${result.lastSeq} ${result.headHash}\n`);
          fsyncSync(fd);
        } finally {
          closeSync(fd);
        }
      }
      if (here("after-resolve")) setImmediate(kill);
      return result;
    },
    read: (scope, readOptions) => journal.read(scope, readOptions),
    head: (scope) => journal.head(scope),
    verify: (scope) => journal.verify(scope),
    listRuns: (tenantId) => journal.listRuns(tenantId),
    close: () => journal.close(),
  };
}
