import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { YokeError } from "@yoke/protocol";
import { ACK_LOG_ENV, CRASH_PLAN_ENV, KILL_POINTS, type KillPoint } from "./crash-point.js";
import type { UncertainAction } from "./action-summary.js";

/** The marker of the one stdout line a scenario process prints at the end. */
export const SCENARIO_REPORT_PREFIX = "YOKE_SCENARIO_REPORT ";
/** Set (to "1") in every scenario process a crash injector starts: print the report line. */
export const SCENARIO_REPORT_ENV = "YOKE_SCENARIO_REPORT";

/**
 * What a scenario process reports when its run is over. Build it with `summarizeActions`
 * and the journal's `verify`, and print it with `printScenarioReport`.
 */
export interface ScenarioReport {
  readonly outcome: string;
  /** A digest of what the user cares about (effects, outcome); equal across crash-free runs. */
  readonly finalState: string;
  readonly verified: boolean;
  /** The hash of every event of the run, by sequence number. */
  readonly hashes: readonly string[];
  /** Non-idempotent effects applied more than once, from the effect ledger. */
  readonly duplicatedEffects: number;
  readonly uncertain: readonly UncertainAction[];
  readonly silentRetries: number;
}

/** Prints the report line the crash injector reads. */
export function printScenarioReport(report: ScenarioReport): void {
  process.stdout.write(`${SCENARIO_REPORT_PREFIX}${JSON.stringify(report)}\n`);
}

export interface CrashInjectorOptions {
  /** The scenario: a Node script that runs (or, with `--resume`, resumes) one run in `--dir <dir>`. */
  readonly script: string;
  /** A fresh, empty directory for each execution of the scenario. */
  readonly newDirectory: (label: string) => string;
  /** Kill points to try at each append. Default: all three. */
  readonly points?: readonly KillPoint[];
  /** Extra arguments for node (before the script). */
  readonly execArgv?: readonly string[];
  /** Extra arguments for the script, on every run (crash-free, killed and resumed), e.g. a scenario seed. */
  readonly args?: readonly string[];
  /** Per child process. Default 60 s. */
  readonly timeoutMs?: number;
  /**
   * Node's compile cache for the scenario processes (`NODE_COMPILE_CACHE`), which load the same
   * modules once per kill point: a folder, or `false` for none. Default: a folder under the OS
   * temp dir. A `NODE_COMPILE_CACHE` already in the environment wins.
   */
  readonly compileCache?: string | false;
}

export interface KillPointResult {
  readonly append: number;
  readonly point: KillPoint;
  readonly report: ScenarioReport | undefined;
  readonly failures: readonly string[];
}

export interface CrashInjectorResult {
  /** Appends of the crash-free run: the durable transitions. */
  readonly appends: number;
  /** Kill points tried: appends × points. */
  readonly killPoints: number;
  readonly baseline: ScenarioReport;
  readonly results: readonly KillPointResult[];
  /** Every broken invariant, named by kill point. Empty when the scenario survives them all. */
  readonly failures: readonly string[];
}

/**
 * Runs a scenario crash-free in a child process, then once per durable append × kill point:
 * runs it again in a fresh directory, SIGKILLs it there (`crashInjection` in the scenario
 * does the killing), resumes it in a new process, and checks the invariants:
 * - the killed process really died of SIGKILL at that point;
 * - the resumed run ends, its hash chain verifies, and every append acknowledged before the
 *   kill is in the journal unchanged (0 lost acknowledged events);
 * - 0 duplicated non-idempotent effects in the ledger, 0 silent retries;
 * - every action that went through `uncertain` was reconciled or escalated, and the final
 *   state equals the crash-free run's unless an action ended uncertain (escalated).
 *
 * @example
 * ```ts
 * const result = runCrashInjector({ script: "test/scenario.ts", newDirectory: (label) => mkdtempSync(join(tmpdir(), label)) });
 * expect(result.failures).toEqual([]);
 * console.log(`${result.killPoints} kill points`);
 * ```
 */
export function runCrashInjector(options: CrashInjectorOptions): CrashInjectorResult {
  const points = options.points ?? KILL_POINTS;
  const cache = options.compileCache ?? join(tmpdir(), "yoke-crash-injector-compile-cache");
  const inherited = cache === false ? {} : { NODE_COMPILE_CACHE: cache };
  const run = (dir: string, resume: boolean, env: Record<string, string>) =>
    spawnSync(process.execPath, [...(options.execArgv ?? []), options.script, ...(options.args ?? []), "--dir", dir, ...(resume ? ["--resume"] : [])], {
      encoding: "utf8",
      timeout: options.timeoutMs ?? 60_000,
      env: { ...inherited, ...process.env, [SCENARIO_REPORT_ENV]: "1", ...env },
    });
  const baselineDir = options.newDirectory("baseline");
  const baselineAcks = join(baselineDir, "acks.log");
  const first = run(baselineDir, false, { [ACK_LOG_ENV]: baselineAcks });
  const baseline = reportOf(first.stdout);
  if (first.status !== 0 || baseline === undefined) {
    throw new YokeError("CONFIG_INVALID", `the crash-free run of ${options.script} failed (status ${first.status}):\n${first.stdout}\n${first.stderr}`, {
      details: { script: options.script, status: first.status },
    });
  }
  const appends = readAcks(baselineAcks).length;
  const results: KillPointResult[] = [];
  for (let append = 1; append <= appends; append++) {
    for (const point of points) {
      const dir = options.newDirectory(`kill-${append}-${point}`);
      const acks = join(dir, "acks.log");
      const failures: string[] = [];
      const killed = run(dir, false, { [CRASH_PLAN_ENV]: `${append}:${point}`, [ACK_LOG_ENV]: acks });
      if (killed.signal !== "SIGKILL") failures.push(`not killed (status ${killed.status}, signal ${killed.signal}): ${killed.stderr.slice(0, 500)}`);
      const resumed = run(dir, true, {});
      const report = reportOf(resumed.stdout);
      if (resumed.status !== 0 || report === undefined) {
        failures.push(`resume failed (status ${resumed.status}): ${resumed.stderr.slice(0, 800)}`);
      } else {
        failures.push(...checkInvariants(report, baseline, readAcks(acks)));
      }
      results.push({ append, point, report, failures });
    }
  }
  return {
    appends,
    killPoints: results.length,
    baseline,
    results,
    failures: results.flatMap((result) => result.failures.map((failure) => `append ${result.append} ${result.point}: ${failure}`)),
  };
}

function checkInvariants(report: ScenarioReport, baseline: ScenarioReport, acks: readonly { seq: number; hash: string }[]): string[] {
  const failures: string[] = [];
  if (!report.verified) failures.push("the hash chain does not verify after the resume");
  for (const ack of acks) if (report.hashes[ack.seq] !== ack.hash) failures.push(`acknowledged event ${ack.seq} was lost or changed`);
  if (report.duplicatedEffects !== 0) failures.push(`${report.duplicatedEffects} non-idempotent effects applied twice`);
  if (report.silentRetries !== 0) failures.push(`${report.silentRetries} attempts made without a reconciliation or retryable failure`);
  const unresolved = report.uncertain.filter((action) => action.resolution === "unresolved" || action.resolution === "unknown");
  if (unresolved.length > 0) failures.push(`uncertain actions neither reconciled nor escalated: ${unresolved.map((action) => action.actionId).join(", ")}`);
  // Only an action that ended uncertain (escalated to a human) may leave the world different.
  const escalated = report.uncertain.some((action) => action.resolution === "escalated");
  if (report.finalState !== baseline.finalState && !escalated) {
    failures.push(`final state ${report.finalState} differs from the crash-free run's ${baseline.finalState} and no action ended uncertain`);
  }
  return failures;
}

function reportOf(stdout: string): ScenarioReport | undefined {
  const line = stdout.split("\n").findLast((entry) => entry.startsWith(SCENARIO_REPORT_PREFIX));
  return line === undefined ? undefined : (JSON.parse(line.slice(SCENARIO_REPORT_PREFIX.length)) as ScenarioReport);
}

function readAcks(path: string): { seq: number; hash: string }[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const [seq, hash] = line.split(" ");
      return { seq: Number(seq), hash: hash! };
    });
}
