import type { BlockedCall, SuiteRun } from "./runner.js";

/** A fraction with its parts. */
export interface Ratio {
  readonly passed: number;
  readonly total: number;
}

/** The figures of one suite under one defence. */
export interface SuiteReport {
  readonly suite: string;
  /** The defence the runs went through (`undefended`, `per-task policy`, `suite-wide policy`). */
  readonly mode: string;
  readonly userTasks: number;
  readonly pairs: number;
  /** Pairs whose attack effect was committed (security check on the final state and the calls that ran). */
  readonly committedAttackEffects: readonly string[];
  /** Committed attack effects and pairs, per injection task, in the suite's order. */
  readonly byInjectionTask: readonly { readonly injectionTaskId: string; readonly committed: number; readonly pairs: number }[];
  /** Pairs whose injection task is judged on what the model says, and how many of those the attack won (no defence labels output yet). */
  readonly outputAttacks: { readonly committed: number; readonly pairs: number };
  /** Pairs upstream would count as attacked: the security check on the trace the model issued (refused calls included). */
  readonly attacksIssued: number;
  /** Pairs in which the model read the injection and obeyed it (issued its calls). */
  readonly injectionsObeyed: number;
  readonly utilityWithoutAttack: Ratio;
  /** Over pairs (user × injection). */
  readonly utilityUnderAttack: Ratio;
  /** Benign calls that did not run in the runs without attack. */
  readonly blockedBenignCalls: readonly BlockedCall[];
  /** Benign calls that did not run in the runs under attack. */
  readonly blockedBenignCallsUnderAttack: readonly BlockedCall[];
  /**
   * Approvals the runs asked a person for: without attack (`approved` of `asked`), and under
   * attack, split into calls the user's task asked for (`benign`) and calls it did not
   * (`injected`: a person had to say no to the attacker).
   */
  readonly approvals: {
    readonly withoutAttack: { readonly asked: number; readonly approved: number };
    readonly underAttack: {
      readonly asked: number;
      readonly approved: number;
      readonly benign: number;
      readonly injected: number;
      readonly injectedApproved: number;
    };
  };
  /** User tasks whose utility failed without attack. */
  readonly failedUserTasks: readonly string[];
  /** Runs where the harness threw. */
  readonly errors: readonly string[];
}

/**
 * The report of one suite run under one defence: committed attack effects, utility without
 * and under attack, and every blocked benign call.
 *
 * @example
 * ```ts
 * const report = suiteReport(await runSuite({ suite, harness }), "suite-wide policy");
 * report.committedAttackEffects.length; // 0
 * ```
 */
export function suiteReport(run: SuiteRun, mode: string): SuiteReport {
  const pairId = (result: { userTaskId: string; injectionTaskId?: string }) => `${result.userTaskId} × ${result.injectionTaskId ?? "-"}`;
  return {
    suite: run.suite,
    mode,
    userTasks: run.withoutAttack.length,
    pairs: run.underAttack.length,
    committedAttackEffects: run.underAttack.filter((result) => result.attackCommitted === true).map(pairId),
    byInjectionTask: [...new Set(run.underAttack.map((result) => result.injectionTaskId ?? "-"))].map((injectionTaskId) => {
      const of = run.underAttack.filter((result) => (result.injectionTaskId ?? "-") === injectionTaskId);
      return { injectionTaskId, committed: of.filter((result) => result.attackCommitted === true).length, pairs: of.length };
    }),
    outputAttacks: {
      committed: run.underAttack.filter((result) => result.outputAttack === true && result.attackCommitted === true).length,
      pairs: run.underAttack.filter((result) => result.outputAttack === true).length,
    },
    attacksIssued: run.underAttack.filter((result) => result.attackIssued === true).length,
    injectionsObeyed: run.underAttack.filter((result) => result.injectionObeyed === true).length,
    utilityWithoutAttack: { passed: run.withoutAttack.filter((result) => result.utility).length, total: run.withoutAttack.length },
    utilityUnderAttack: { passed: run.underAttack.filter((result) => result.utility).length, total: run.underAttack.length },
    blockedBenignCalls: run.withoutAttack.flatMap((result) => result.blocked),
    blockedBenignCallsUnderAttack: run.underAttack.flatMap((result) => result.blocked),
    approvals: {
      withoutAttack: {
        asked: run.withoutAttack.reduce((sum, result) => sum + result.approvals.length, 0),
        approved: run.withoutAttack.reduce((sum, result) => sum + result.approvals.filter((approval) => approval.approved).length, 0),
      },
      underAttack: {
        asked: run.underAttack.reduce((sum, result) => sum + result.approvals.length, 0),
        approved: run.underAttack.reduce((sum, result) => sum + result.approvals.filter((approval) => approval.approved).length, 0),
        benign: run.underAttack.reduce((sum, result) => sum + result.approvals.filter((approval) => approval.benign).length, 0),
        injected: run.underAttack.reduce((sum, result) => sum + result.approvals.filter((approval) => !approval.benign).length, 0),
        injectedApproved: run.underAttack.reduce((sum, result) => sum + result.approvals.filter((approval) => !approval.benign && approval.approved).length, 0),
      },
    },
    failedUserTasks: run.withoutAttack.filter((result) => !result.utility).map((result) => result.userTaskId),
    errors: [...run.withoutAttack, ...run.underAttack].filter((result) => result.error !== undefined).map((result) => `${pairId(result)}: ${result.error}`),
  };
}

/** The rule a refusal names (` (rule default-deny)`), or the message's first line. */
function ruleOf(message: string | undefined): string {
  if (message === undefined) return "";
  const rule = /\(rule ([^)]+)\)/.exec(message)?.[1];
  return rule === undefined ? `: ${message.split("\n").find((line) => line.trim() !== "" && !line.startsWith("\u27e6")) ?? ""}` : ` (rule ${rule})`;
}

/** Up to 10 pair ids in parentheses, then how many more. */
function listed(pairs: readonly string[]): string {
  if (pairs.length === 0) return "";
  const more = pairs.length > 10 ? `, … ${pairs.length - 10} more` : "";
  return ` (${pairs.slice(0, 10).join(", ")}${more})`;
}

/** Approvals asked of a person per user task run without attack. */
export const perBenignTask = (report: SuiteReport): number => (report.userTasks === 0 ? 0 : report.approvals.withoutAttack.asked / report.userTasks);
/** Approvals asked of a person per attacked pair. */
export const perAttackedPair = (report: SuiteReport): number => (report.pairs === 0 ? 0 : report.approvals.underAttack.asked / report.pairs);

const percent = (ratio: Ratio) => (ratio.total === 0 ? "n/a" : `${((100 * ratio.passed) / ratio.total).toFixed(1)}%`);

/** The ratio summed over several reports. */
export function totalOf(reports: readonly SuiteReport[], pick: (report: SuiteReport) => Ratio): Ratio {
  return reports.reduce((sum, report) => ({ passed: sum.passed + pick(report).passed, total: sum.total + pick(report).total }), { passed: 0, total: 0 });
}

/**
 * The reports as text: one block per suite and defence, then every blocked benign call.
 *
 * @example
 * ```ts
 * console.log(formatReport([suiteReport(banking, "suite-wide policy"), suiteReport(slack, "suite-wide policy")]));
 * ```
 */
export function formatReport(reports: readonly SuiteReport[]): string {
  const lines: string[] = [];
  for (const report of reports) {
    lines.push(`${report.suite} — ${report.mode}: ${report.userTasks} user tasks, ${report.pairs} pairs`);
    lines.push(`  committed attack effects:  ${report.committedAttackEffects.length}/${report.pairs}${listed(report.committedAttackEffects)}`);
    lines.push(`    per injection task: ${report.byInjectionTask.map((task) => `${task.injectionTaskId} ${task.committed}/${task.pairs}`).join(", ")}`);
    if (report.outputAttacks.pairs > 0) {
      lines.push(`  output-only attacks (judged on what the model says; no defence yet): ${report.outputAttacks.committed}/${report.outputAttacks.pairs} won`);
    }
    lines.push(
      `  attacks issued (upstream's count on the issued trace): ${report.attacksIssued}/${report.pairs}; injections obeyed by the model: ${report.injectionsObeyed}/${report.pairs}`,
    );
    lines.push(
      `  utility without attack:    ${report.utilityWithoutAttack.passed}/${report.utilityWithoutAttack.total} (${percent(report.utilityWithoutAttack)})${report.failedUserTasks.length > 0 ? ` failed: ${report.failedUserTasks.join(", ")}` : ""}`,
    );
    lines.push(`  utility under attack:      ${report.utilityUnderAttack.passed}/${report.utilityUnderAttack.total} (${percent(report.utilityUnderAttack)})`);
    lines.push(`  blocked benign calls:      ${report.blockedBenignCalls.length} without attack, ${report.blockedBenignCallsUnderAttack.length} under attack`);
    const { withoutAttack: quiet, underAttack: attacked } = report.approvals;
    lines.push(`  approvals per benign task: ${perBenignTask(report).toFixed(2)}; per attacked pair: ${perAttackedPair(report).toFixed(2)}`);
    lines.push(
      `  approvals asked of a person: ${quiet.asked} without attack (${quiet.approved} approved); ${attacked.asked} under attack: ${attacked.benign} for calls the user asked for, ${attacked.injected} for calls they did not (${attacked.injectedApproved} of those approved)`,
    );
    for (const call of report.blockedBenignCalls) {
      lines.push(`    ${call.userTaskId}: ${call.function}(${JSON.stringify(call.args)}) → ${call.code}${ruleOf(call.message)}`);
    }
    if (report.errors.length > 0) lines.push(`  harness errors: ${report.errors.length}`, ...report.errors.slice(0, 10).map((error) => `    ${error}`));
  }
  const modes = [...new Set(reports.map((report) => report.mode))];
  for (const mode of modes) {
    const of = reports.filter((report) => report.mode === mode);
    const committed = of.reduce((sum, report) => sum + report.committedAttackEffects.length, 0);
    const pairs = of.reduce((sum, report) => sum + report.pairs, 0);
    const without = totalOf(of, (report) => report.utilityWithoutAttack);
    const under = totalOf(of, (report) => report.utilityUnderAttack);
    const asked = of.reduce((sum, report) => sum + report.approvals.withoutAttack.asked + report.approvals.underAttack.asked, 0);
    lines.push(
      `TOTAL ${mode}: committed attack effects ${committed}/${pairs}; utility without attack ${without.passed}/${without.total} (${percent(without)}); under attack ${under.passed}/${under.total} (${percent(under)}); approvals asked of a person ${asked}`,
    );
  }
  return lines.join("\n");
}
