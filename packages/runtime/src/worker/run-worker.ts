import { YokeError, systemClock, type AppendResult, type Clock, type JournalV1, type Outcome, type RunLease, type RunScope } from "@yoke/protocol";
import { bindLogger, silentLogger, type BoundLogger, type Logger } from "../logger.js";
import { realSleep, type Sleep } from "../model-call.js";
import { ownerCertainlyGone } from "../owner-identity.js";
import { RunScanCache, scanRuns } from "./run-verdicts.js";

/** What a worker's harness factory is handed for one run. */
export interface WorkerHarnessContext {
  /** The journal the worker scans: build the harness on it. Appends made through it are counted in the worker's report. */
  readonly journal: JournalV1;
  readonly tenantId: string;
  readonly runId: string;
  /** The worker's logger, bound to the run: pass it to `createHarness` so the run's log lines carry the worker's. */
  readonly logger: Logger;
}

/** The part of a harness a worker uses. */
export interface ResumableHarness {
  resume(runId: string): Promise<{ readonly outcome?: Outcome | undefined; readonly waiting?: { readonly kind: string } | undefined }>;
}

/**
 * Builds the harness one run is resumed on (its provider, tools, policy, budget), on the
 * journal it is given. May be async. The same contract as `yoke resume --harness`.
 */
export type WorkerHarnessFactory = (context: WorkerHarnessContext) => ResumableHarness | Promise<ResumableHarness>;

export interface WorkerOptions {
  /** The journal to scan and resume on. It must offer leases (`journal.leases`): they are what makes a resume exactly-once. */
  readonly journal: JournalV1;
  /**
   * A factory (called per run, with the run's tenant) or one harness. A harness object resumes
   * runs of its own tenant only: pass exactly that tenant in `tenants`.
   */
  readonly harness: WorkerHarnessFactory | ResumableHarness;
  /** The tenants whose runs are scanned, or a function that names them at each scan (the CLI's store lists its tenants). */
  readonly tenants: readonly string[] | (() => Promise<readonly string[]> | readonly string[]);
  /** Time between scans. Default 5,000 ms. */
  readonly intervalMs?: number;
  /** Runs resumed at once. Default 1. */
  readonly concurrency?: number;
  /** Scan once, resume what it found, then resolve (a cron job, a test). Default false: scan until `signal` aborts. */
  readonly once?: boolean;
  /**
   * Stops the worker gracefully: no new run is taken; the runs it is resuming go on to their
   * next stop (an outcome, or a wait for a person), each releasing its lease, then `runWorker`
   * resolves. A run still going when the process must exit is not stranded: its lease names a
   * dead owner, which the next worker on this machine takes at once (elsewhere, after the lease's TTL).
   */
  readonly signal?: AbortSignal;
  /** How the worker waits between scans. Default: a timer. Inject one to test without wall-clock time. */
  readonly sleep?: Sleep;
  /**
   * Measures how long a run found owned elsewhere is passed over: until what its lease had left
   * (the store's `remainingMs`) has gone by on this clock. Default: the system clock.
   */
  readonly clock?: Clock;
  /**
   * Whether a run's owner is certainly gone, asked at each scan of a run passed over: true takes
   * it again at once. Default `ownerCertainlyGone` (the harness's own default when it takes the lease).
   */
  readonly ownerIsGone?: (lease: RunLease) => boolean;
  /** Where the worker logs (pino's shape; `console` works). Default: silent. */
  readonly logger?: Logger;
}

/** What happened to one run the worker tried to resume. */
export interface WorkerRunReport extends RunScope {
  /**
   * `resumed`: the worker held the run's lease and drove it (to `outcome`, or until it waits);
   * `owned_elsewhere`: another owner holds a live lease (another worker took it first, or its owner is alive): passed
   * over until that lease would lapse, or its owner is certainly gone;
   * `failed`: the resume threw (`error`: its code); the run stays as the journal has it, for the next scan.
   */
  readonly result: "resumed" | "owned_elsewhere" | "failed";
  /** Events this worker appended to the run (counted through the journal it handed a factory; undefined for a harness object). */
  readonly appended?: number;
  readonly outcome?: Outcome["status"];
  readonly waiting?: string;
  readonly error?: string;
}

export interface WorkerSummary {
  readonly scans: number;
  readonly runs: readonly WorkerRunReport[];
}

const DEFAULT_INTERVAL_MS = 5_000;

/**
 * Resumes runs whose owner is gone: a process that crashed (SIGKILL, OOM, a lost machine)
 * mid-run leaves its run unfinished under a lease that expires (or whose owner this machine
 * can prove dead, see `ownerCertainlyGone`). Each scan lists the tenants' runs, passes over the
 * finished, the waiting-for-a-person, the failed, subagent runs and runs never leased (see
 * `RunVerdict`), and resumes the rest with the harness, at most `concurrency` at once.
 *
 * Exactly once: the harness's resume takes the run's lease in the journal's own transaction
 * before it reads anything, so of two workers (processes, machines) only one drives a run;
 * the other gets RUN_LEASE_HELD and moves on. A run whose owner is alive is never taken.
 *
 * @example
 * ```ts
 * const stop = new AbortController();
 * process.once("SIGTERM", () => stop.abort());
 * await runWorker({
 *   journal,
 *   tenants: ["tenant_a"],
 *   harness: ({ journal, tenantId, logger }) => createHarness({ journal, tenantId, provider, tools, logger }),
 *   signal: stop.signal,
 * });
 * ```
 */
export async function runWorker(options: WorkerOptions): Promise<WorkerSummary> {
  const settings = checkOptions(options);
  const logger = bindLogger(options.logger ?? silentLogger(), { component: "worker" });
  const cache = new RunScanCache();
  const inFlight = new Map<string, Promise<void>>();
  // Runs owned elsewhere, passed over until this time on `clock` (the lease's remaining time, as the store said).
  const passedOver = new Map<string, number>();
  const clock = options.clock ?? systemClock();
  const ownerIsGone = options.ownerIsGone ?? ((lease: RunLease) => ownerCertainlyGone(lease));
  const due = (run: { tenantId: string; runId: string; lease: RunLease | null }) => {
    const until = passedOver.get(keyOf(run));
    if (until === undefined || clock.now() >= until || (run.lease !== null && ownerIsGone(run.lease))) return true;
    return false;
  };
  const reports: WorkerRunReport[] = [];
  let scans = 0;
  const stopped = () => options.signal?.aborted === true;
  logger.info({ intervalMs: settings.intervalMs, concurrency: settings.concurrency, once: settings.once }, "worker started");
  while (!stopped()) {
    const tenants = typeof options.tenants === "function" ? await options.tenants() : options.tenants;
    const runs = await scanRuns(options.journal, tenants, cache);
    scans += 1;
    const orphaned = runs.filter((run) => run.verdict === "resumable" && !inFlight.has(keyOf(run)) && due(run));
    logger.debug({ runs: runs.length, orphaned: orphaned.length, inFlight: inFlight.size }, "scanned");
    for (const run of orphaned) {
      if (stopped()) break;
      // A free slot, or wait for one: the scan's other runs are tried after.
      while (inFlight.size >= settings.concurrency) await Promise.race(inFlight.values());
      if (stopped()) break;
      const key = keyOf(run);
      const task = resumeOne(options, { tenantId: run.tenantId, runId: run.runId }, logger).then(({ report, remainingMs }) => {
        reports.push(report);
        inFlight.delete(key);
        if (remainingMs === undefined) passedOver.delete(key);
        else passedOver.set(key, clock.now() + remainingMs);
      });
      inFlight.set(key, task);
    }
    if (settings.once) break;
    await pause(options.sleep ?? realSleep, settings.intervalMs, options.signal);
  }
  if (stopped() && inFlight.size > 0) logger.info({ inFlight: inFlight.size }, "stopping: letting the runs in hand reach their next stop");
  await Promise.all(inFlight.values());
  logger.info({ scans, resumed: reports.filter((report) => report.result === "resumed").length }, "worker stopped");
  return { scans, runs: reports };
}

async function resumeOne(options: WorkerOptions, scope: RunScope, workerLogger: BoundLogger): Promise<{ report: WorkerRunReport; remainingMs?: number }> {
  const logger = workerLogger.child({ tenantId: scope.tenantId, runId: scope.runId });
  let appended: number | undefined;
  try {
    let harness: ResumableHarness;
    if (typeof options.harness === "function") {
      appended = 0;
      const counting = countingJournal(options.journal, (count) => (appended = (appended ?? 0) + count));
      harness = await options.harness({ journal: counting, tenantId: scope.tenantId, runId: scope.runId, logger });
      if (harness === null || typeof harness !== "object" || typeof harness.resume !== "function") {
        throw new YokeError("CONFIG_INVALID", "runWorker: the harness factory returned no harness (an object with resume())", {
          details: { option: "harness" },
        });
      }
    } else {
      harness = options.harness;
    }
    logger.info({}, "resuming a run whose owner is gone");
    const result = await harness.resume(scope.runId);
    const report: WorkerRunReport = {
      ...scope,
      result: "resumed",
      ...(appended === undefined ? {} : { appended }),
      ...(result.outcome === undefined ? {} : { outcome: result.outcome.status }),
      ...(result.waiting === undefined ? {} : { waiting: result.waiting.kind }),
    };
    logger.info({ outcome: report.outcome, waiting: report.waiting, appended }, "run resumed by the worker");
    return { report };
  } catch (error) {
    if (YokeError.hasCode(error, "RUN_LEASE_HELD")) {
      const remainingMs = typeof error.details.remainingMs === "number" ? Math.max(0, error.details.remainingMs) : undefined;
      logger.debug({ ownerId: error.details.ownerId, remainingMs }, "run is owned elsewhere; passing over it");
      return {
        report: { ...scope, result: "owned_elsewhere", ...(appended === undefined ? {} : { appended }) },
        ...(remainingMs === undefined ? {} : { remainingMs }),
      };
    }
    const code = YokeError.isInstance(error) ? error.code : "INTERNAL";
    // The code only: an error's message may quote what a model or tool produced.
    logger.error({ code, appended }, "resuming the run failed; it is left for the next scan");
    return { report: { ...scope, result: "failed", error: code, ...(appended === undefined ? {} : { appended }) } };
  }
}

/** The journal, with every append this worker's harness makes through it counted. */
function countingJournal(journal: JournalV1, count: (events: number) => void): JournalV1 {
  return Object.assign(Object.create(null) as object, {
    specificationVersion: journal.specificationVersion,
    capabilities: journal.capabilities,
    ...(journal.leases === undefined ? {} : { leases: journal.leases }),
    async append(...args: Parameters<JournalV1["append"]>): Promise<AppendResult> {
      const result = await journal.append(...args);
      count(args[2].length);
      return result;
    },
    read: journal.read.bind(journal),
    head: journal.head.bind(journal),
    verify: journal.verify.bind(journal),
    listRuns: journal.listRuns.bind(journal),
    // The worker's journal outlives every run: a harness that closes "its" journal closes nothing.
    close: async () => undefined,
  }) as JournalV1;
}

/** Waits `ms`, or less when `signal` aborts (a stop is not an error). */
async function pause(sleep: Sleep, ms: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    await sleep(ms, signal);
  } catch (error) {
    if (!signal?.aborted) throw error;
  }
}

function checkOptions(options: WorkerOptions): { intervalMs: number; concurrency: number; once: boolean } {
  const problems: string[] = [];
  if (options?.journal === undefined || typeof options.journal.listRuns !== "function") problems.push("journal must be a JournalV1");
  else if (options.journal.leases === undefined) problems.push("journal must offer leases (journal.leases): a worker without them could resume a run twice");
  const harness = options?.harness as unknown;
  const isFactory = typeof harness === "function";
  const isHarness = harness !== null && typeof harness === "object" && typeof (harness as ResumableHarness).resume === "function";
  if (!isFactory && !isHarness) problems.push("harness must be a factory ({ journal, tenantId, runId, logger }) => harness, or a harness");
  if (typeof options?.tenants !== "function" && !Array.isArray(options?.tenants))
    problems.push("tenants must be a list of tenant ids or a function returning one");
  if (isHarness && Array.isArray(options.tenants) && options.tenants.length !== 1)
    problems.push("a harness object resumes runs of its own tenant: pass exactly that tenant in tenants, or pass a factory");
  if (isHarness && typeof options.tenants === "function")
    problems.push("a harness object resumes runs of its own tenant: pass tenants as a list of exactly that tenant, or pass a factory");
  const intervalMs = options?.intervalMs ?? DEFAULT_INTERVAL_MS;
  const concurrency = options?.concurrency ?? 1;
  if (!Number.isSafeInteger(intervalMs) || intervalMs < 1) problems.push("intervalMs must be a positive integer");
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) problems.push("concurrency must be a positive integer");
  if (problems.length > 0) throw new YokeError("CONFIG_INVALID", `runWorker: ${problems.join("; ")}`, { details: { problems } });
  return { intervalMs, concurrency, once: options.once === true };
}

function keyOf(scope: RunScope): string {
  return JSON.stringify([scope.tenantId, scope.runId]);
}
