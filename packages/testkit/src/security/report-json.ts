import { z } from "zod/v4";
import { perAttackedPair, perBenignTask, totalOf, type SuiteReport } from "./report.js";

/** The four ways a suite is run: no policy; the policy with nobody approving; an honest person approving; a person approving everything. */
export const SECURITY_MODES = ["undefended", "nobody", "honest", "rubberStamp"] as const;
export type SecurityMode = (typeof SECURITY_MODES)[number];

const ratio = z.object({ passed: z.number().int().nonnegative(), total: z.number().int().nonnegative() }).strict();
const count = z.number().int().nonnegative();

/** The figures of one mode (one suite, or the sum over suites). */
export const ModeFiguresSchema = z
  .object({
    attacks: z
      .object({
        committed: count,
        pairs: count,
        committedPairs: z.array(z.string()),
        byInjectionTask: z.record(z.string(), z.object({ committed: count, pairs: count }).strict()),
        issued: count,
        obeyed: count,
        outputOnly: z.object({ committed: count, pairs: count }).strict(),
      })
      .strict(),
    utility: z.object({ withoutAttack: ratio, underAttack: ratio }).strict(),
    approvals: z
      .object({
        perBenignTask: z.number().nonnegative(),
        perAttackedPair: z.number().nonnegative(),
        withoutAttack: z.object({ asked: count, approved: count }).strict(),
        underAttack: z.object({ asked: count, approved: count, benign: count, injected: count, injectedApproved: count }).strict(),
      })
      .strict(),
    blockedBenignCalls: z.object({ withoutAttack: count, underAttack: count }).strict(),
    errors: count,
  })
  .strict();
export type ModeFigures = z.infer<typeof ModeFiguresSchema>;

const modesSchema = z
  .object(
    Object.fromEntries(SECURITY_MODES.map((mode) => [mode, ModeFiguresSchema.optional()])) as Record<SecurityMode, z.ZodOptional<typeof ModeFiguresSchema>>,
  )
  .strict();

/**
 * The `--json` document of `pnpm security`: `modes.<mode>` summed over the suites run, and
 * `suites.<name>` with the policy each ran under and its own `modes`.
 */
export const SecurityReportJsonSchema = z
  .object({
    version: z.literal(1),
    /** How the runs got their delegation (absent: the runs had none): what the figures rest on. */
    delegation: z.string().optional(),
    modes: modesSchema,
    suites: z.record(z.string(), z.object({ policy: z.string(), declarations: z.string(), modes: modesSchema }).strict()),
  })
  .strict();
export type SecurityReportJson = z.infer<typeof SecurityReportJsonSchema>;

/** One suite's results to write: the reports per mode and what policy and declarations it ran under. */
export interface SuiteResults {
  readonly suite: string;
  readonly policy: string;
  readonly declarations: string;
  readonly modes: Partial<Record<SecurityMode, SuiteReport>>;
}

function figuresOf(reports: readonly SuiteReport[]): ModeFigures {
  const sum = (pick: (report: SuiteReport) => number) => reports.reduce((total, report) => total + pick(report), 0);
  const byInjectionTask: Record<string, { committed: number; pairs: number }> = {};
  for (const report of reports) {
    for (const task of report.byInjectionTask) {
      const key = reports.length > 1 ? `${report.suite}/${task.injectionTaskId}` : task.injectionTaskId;
      byInjectionTask[key] = { committed: task.committed, pairs: task.pairs };
    }
  }
  const userTasks = sum((report) => report.userTasks);
  const pairs = sum((report) => report.pairs);
  const askedQuiet = sum((report) => report.approvals.withoutAttack.asked);
  const askedAttacked = sum((report) => report.approvals.underAttack.asked);
  return {
    attacks: {
      committed: sum((report) => report.committedAttackEffects.length),
      pairs,
      committedPairs: reports.flatMap((report) => report.committedAttackEffects.map((pair) => (reports.length > 1 ? `${report.suite}/${pair}` : pair))),
      byInjectionTask,
      issued: sum((report) => report.attacksIssued),
      obeyed: sum((report) => report.injectionsObeyed),
      outputOnly: { committed: sum((report) => report.outputAttacks.committed), pairs: sum((report) => report.outputAttacks.pairs) },
    },
    utility: { withoutAttack: totalOf(reports, (report) => report.utilityWithoutAttack), underAttack: totalOf(reports, (report) => report.utilityUnderAttack) },
    approvals: {
      perBenignTask: reports.length === 1 ? perBenignTask(reports[0]!) : userTasks === 0 ? 0 : askedQuiet / userTasks,
      perAttackedPair: reports.length === 1 ? perAttackedPair(reports[0]!) : pairs === 0 ? 0 : askedAttacked / pairs,
      withoutAttack: { asked: askedQuiet, approved: sum((report) => report.approvals.withoutAttack.approved) },
      underAttack: {
        asked: askedAttacked,
        approved: sum((report) => report.approvals.underAttack.approved),
        benign: sum((report) => report.approvals.underAttack.benign),
        injected: sum((report) => report.approvals.underAttack.injected),
        injectedApproved: sum((report) => report.approvals.underAttack.injectedApproved),
      },
    },
    blockedBenignCalls: {
      withoutAttack: sum((report) => report.blockedBenignCalls.length),
      underAttack: sum((report) => report.blockedBenignCallsUnderAttack.length),
    },
    errors: sum((report) => report.errors.length),
  };
}

function modesOf(results: readonly SuiteResults[]): Partial<Record<SecurityMode, ModeFigures>> {
  const modes: Partial<Record<SecurityMode, ModeFigures>> = {};
  for (const mode of SECURITY_MODES) {
    const reports = results.flatMap((result) => (result.modes[mode] === undefined ? [] : [result.modes[mode]]));
    if (reports.length > 0) modes[mode] = figuresOf(reports);
  }
  return modes;
}

/**
 * The JSON document of a security run (validated by `SecurityReportJsonSchema`): per mode,
 * committed attack effects (per injection task too), utility without and under attack,
 * approvals per benign task and per attacked pair, blocked benign calls; `notes.delegation`
 * says how the runs got their delegation.
 *
 * @example
 * ```ts
 * const json = securityReportJson([{ suite: "banking", policy: "policies/banking.json", declarations: "policies/banking.tools.json", modes: { nobody: report } }]);
 * json.modes.nobody?.attacks.committed; // 0
 * ```
 */
export function securityReportJson(results: readonly SuiteResults[], notes: { readonly delegation?: string } = {}): SecurityReportJson {
  const suites: SecurityReportJson["suites"] = {};
  for (const result of results) suites[result.suite] = { policy: result.policy, declarations: result.declarations, modes: modesOf([result]) };
  return SecurityReportJsonSchema.parse({
    version: 1,
    ...(notes.delegation === undefined ? {} : { delegation: notes.delegation }),
    modes: modesOf(results),
    suites,
  });
}
