import type { YokeEvent } from "@yoke/protocol";
import { summarizeRun, type CallDecision, type RunSummary } from "./run-decisions.js";
import type { SuppressedCall } from "./suppress-effects.js";

/** The fields of a call's decision a comparison looks at, in the order a difference names them. */
export const COMPARED_FIELDS = ["decision", "rule", "policy", "code", "outcome"] as const;
export type ComparedField = (typeof COMPARED_FIELDS)[number];

/**
 * One call whose decision differs: the tool, the arguments digest, and each run's decision
 * (absent when that run made no such call). Calls are paired by tool and arguments digest, the
 * n-th such call of one run with the n-th of the other, so a candidate that reorders calls is
 * not reported as differing on every one.
 */
export interface DecisionDifference {
  readonly toolName: string;
  readonly argumentsDigest: string;
  readonly fields: readonly ComparedField[];
  readonly primary?: CallDecision;
  readonly candidate?: CallDecision;
}

/** Why the candidate has no run to compare, or ended without one: its harness threw. */
export interface CandidateFailure {
  readonly code: string;
  readonly message: string;
}

/**
 * A primary run and its candidate, compared: each run's summary (outcome, calls, spend,
 * latency), the calls whose decisions differ, how many agree, and (from a shadow) each of the
 * candidate's calls that did not run. JSON as it is; `formatRolloutReport` prints it.
 */
export interface RolloutReport {
  readonly runId: string;
  readonly primary: RunSummary;
  /** Absent when the candidate failed before it had a run. */
  readonly candidate?: RunSummary;
  readonly candidateFailure?: CandidateFailure;
  readonly sameDecisions: number;
  readonly differences: readonly DecisionDifference[];
  readonly outcomeDiffers: boolean;
  readonly suppressed: readonly SuppressedCall[];
}

/**
 * Compares two runs from their events: typically a primary run and its shadow (or canary)
 * candidate on the same input, each read from its own journal with `harness.events(runId)`.
 *
 * @example
 * ```ts
 * const report = compareRuns(await collect(primary.events(runId)), await collect(candidate.events(runId)));
 * for (const difference of report.differences) console.log(difference.toolName, difference.fields);
 * ```
 */
export function compareRuns(primary: readonly YokeEvent[], candidate: readonly YokeEvent[]): RolloutReport {
  const primarySummary = summarizeRun(primary);
  const candidateSummary = summarizeRun(candidate);
  const { same, differences } = compareCalls(primarySummary.calls, candidateSummary.calls);
  return {
    runId: primarySummary.runId,
    primary: primarySummary,
    candidate: candidateSummary,
    sameDecisions: same,
    differences,
    outcomeDiffers: primarySummary.outcome !== candidateSummary.outcome,
    suppressed: [],
  };
}

/** The report of a primary run whose candidate failed before it had events. */
export function failedCandidateReport(primary: readonly YokeEvent[], failure: CandidateFailure): RolloutReport {
  const summary = summarizeRun(primary);
  const { differences } = compareCalls(summary.calls, []);
  return { runId: summary.runId, primary: summary, candidateFailure: failure, sameDecisions: 0, differences, outcomeDiffers: true, suppressed: [] };
}

function compareCalls(primary: readonly CallDecision[], candidate: readonly CallDecision[]): { same: number; differences: DecisionDifference[] } {
  const pending = new Map<string, CallDecision[]>();
  for (const call of candidate) {
    const queue = pending.get(keyOf(call)) ?? [];
    queue.push(call);
    pending.set(keyOf(call), queue);
  }
  const differences: DecisionDifference[] = [];
  let same = 0;
  for (const call of primary) {
    const match = pending.get(keyOf(call))?.shift();
    const fields = match === undefined ? [...COMPARED_FIELDS] : COMPARED_FIELDS.filter((field) => !equal(call[field], match[field]));
    if (fields.length === 0) {
      same += 1;
      continue;
    }
    differences.push({
      toolName: call.toolName,
      argumentsDigest: call.argumentsDigest,
      fields,
      primary: call,
      ...(match === undefined ? {} : { candidate: match }),
    });
  }
  // The candidate's calls the primary never made, in the candidate's order.
  for (const call of candidate) {
    const queue = pending.get(keyOf(call));
    if (queue?.[0] !== call) continue;
    queue.shift();
    differences.push({ toolName: call.toolName, argumentsDigest: call.argumentsDigest, fields: [...COMPARED_FIELDS], candidate: call });
  }
  return { same, differences };
}

function keyOf(call: CallDecision): string {
  return `${call.toolName}\u0000${call.argumentsDigest}`;
}

function equal(left: CallDecision[ComparedField], right: CallDecision[ComparedField]): boolean {
  if (typeof left === "object" && typeof right === "object") return left.effect === right.effect && left.ruleId === right.ruleId;
  return left === right;
}
