import type { RolloutReport } from "./compare-runs.js";
import type { CallDecision, RunSummary } from "./run-decisions.js";

/**
 * The report as text for a person: each run's outcome, spend and latency side by side, then
 * every differing decision (tool, arguments digest, the primary's decision, the candidate's),
 * then the candidate's calls that were not run.
 *
 * @example
 * ```ts
 * console.log(formatRolloutReport(await shadowed.report(runId)));
 * ```
 */
export function formatRolloutReport(report: RolloutReport): string {
  const lines = [`rollout report for run ${report.runId}`];
  lines.push(`  primary:   ${summaryLine(report.primary)}`);
  if (report.candidate !== undefined) lines.push(`  candidate: ${summaryLine(report.candidate)}`);
  if (report.candidateFailure !== undefined) lines.push(`  candidate: failed ${report.candidateFailure.code}: ${report.candidateFailure.message}`);
  lines.push(
    `  outcome ${report.outcomeDiffers ? "differs" : "is the same"}; ${report.sameDecisions} call decision(s) the same, ${report.differences.length} differ`,
  );
  for (const difference of report.differences) {
    lines.push(`  - ${difference.toolName} ${difference.argumentsDigest.slice(0, 12)} [${difference.fields.join(", ")}]`);
    lines.push(`      primary:   ${decisionText(difference.primary)}`);
    lines.push(`      candidate: ${decisionText(difference.candidate)}`);
  }
  if (report.suppressed.length > 0) {
    lines.push(`  candidate calls not run: ${report.suppressed.length}`);
    for (const call of report.suppressed) lines.push(`  - ${call.toolName} ${call.argumentsDigest.slice(0, 12)} (${call.sideEffect}): ${call.served}`);
  }
  return `${lines.join("\n")}\n`;
}

function summaryLine(summary: RunSummary): string {
  const charged = Object.entries(summary.spend.charged)
    .map(([dimension, amount]) => `${dimension} ${amount}`)
    .join(", ");
  return [
    summary.outcome,
    `${summary.turns} turn(s)`,
    `${summary.calls.length} call(s)`,
    `tokens ${summary.spend.inputTokens} in / ${summary.spend.outputTokens} out`,
    ...(charged === "" ? [] : [`charged ${charged}`]),
    `${summary.latency.elapsedMs} ms (model ${summary.latency.modelMs}, tools ${summary.latency.toolMs})`,
  ].join("; ");
}

function decisionText(call: CallDecision | undefined): string {
  if (call === undefined) return "no such call";
  const parts = [`turn ${call.turn}`, call.decision];
  if (call.policy !== undefined) parts.push(`policy ${call.policy.effect} (${call.policy.ruleId})`);
  else if (call.rule !== undefined) parts.push(`rule ${call.rule}`);
  if (call.code !== undefined) parts.push(call.code);
  if (call.outcome !== undefined) parts.push(`→ ${call.outcome}`);
  return parts.join(", ");
}
