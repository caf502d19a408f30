// What held, checked or stopped the run: approvals and their decisions, verifier runs, waits,
// interrupts, loop detections and failures, and whether its last word was a wait or a failure.
import type { YokeEvent } from "@yoke/protocol";
import type { ApprovalView, InspectProblem, InterruptView, LoopDetectionView, RunFailureView, VerifierRunView, WaitView } from "./run-view.js";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Events a stopped run may still record without moving on: after them, a wait or failure still stands. */
const KEEPS_LAST_STOP: ReadonlySet<string> = new Set([
  "context.compiled",
  "model.failed",
  "model.responded",
  "tool.rejected",
  "action.approval_requested",
  "approval.granted",
  "approval.denied",
  "approval.voided",
  "verifier.started",
  "verifier.finished",
  "interrupt.landed",
  "loop.detected",
]);

export class StopFolder {
  readonly #approvals = new Map<string, Mutable<ApprovalView>>();
  readonly #verifierRuns = new Map<string, Mutable<VerifierRunView>>();
  readonly waits: WaitView[] = [];
  readonly interrupts: InterruptView[] = [];
  readonly loopDetections: LoopDetectionView[] = [];
  readonly failures: RunFailureView[] = [];
  /** The run's last stop, until an event shows it moved on. */
  lastStop: "failed" | "waiting" | undefined;

  constructor(private readonly problems: InspectProblem[]) {}

  apply(event: YokeEvent): void {
    switch (event.type) {
      case "action.approval_requested":
        this.#approvals.set(event.data.approvalId, {
          approvalId: event.data.approvalId,
          actionId: event.data.actionId,
          requestedSeq: event.seq,
          rule: event.data.policy.ruleId,
          reason: event.data.policy.reason,
          expiresAt: event.data.binding.expiresAt,
          decision: undefined,
        });
        break;
      case "approval.granted":
      case "approval.denied":
      case "approval.voided": {
        const approval = this.#approvals.get(event.data.approvalId);
        const kind = event.type === "approval.granted" ? "granted" : event.type === "approval.denied" ? "denied" : "voided";
        const by = event.type === "approval.voided" ? undefined : event.data.approver;
        const reason = event.type === "approval.granted" ? undefined : event.data.reason;
        if (approval) approval.decision = { seq: event.seq, kind, by, reason };
        else this.problems.push({ seq: event.seq, message: `${event.type} for approval ${event.data.approvalId}, which was never requested` });
        break;
      }
      case "verifier.started":
        this.#verifierRuns.set(event.data.verifierRunId, {
          verifierRunId: event.data.verifierRunId,
          verifierId: event.data.verifierId,
          turnId: event.data.turnId,
          attempt: event.data.attempt,
          replaySafe: event.data.replaySafe,
          startedSeq: event.seq,
          finished: undefined,
        });
        break;
      case "verifier.finished": {
        const run = this.#verifierRuns.get(event.data.verifierRunId);
        if (run) run.finished = { seq: event.seq, passed: event.data.verdict.passed, reason: event.data.verdict.reason };
        break;
      }
      case "run.waiting":
        this.waits.push({ seq: event.seq, kind: event.data.kind, reason: event.data.reason, actionId: event.data.actionId });
        break;
      case "interrupt.landed":
        this.interrupts.push({ seq: event.seq, interruptId: event.data.interruptId, kind: event.data.kind, inboxSeq: event.data.inboxSeq });
        break;
      case "loop.detected":
        this.loopDetections.push({
          seq: event.seq,
          toolName: event.data.toolName,
          pattern: event.data.pattern,
          count: event.data.count,
          response: event.data.response,
        });
        break;
      case "run.failed":
        this.failures.push({ seq: event.seq, code: event.data.code, message: event.data.message, retryable: event.data.retryable });
        break;
    }
    if (event.type === "run.waiting") this.lastStop = "waiting";
    else if (event.type === "run.failed") this.lastStop = "failed";
    else if (!KEEPS_LAST_STOP.has(event.type) && !event.type.startsWith("budget.")) this.lastStop = undefined;
  }

  get approvals(): ApprovalView[] {
    return [...this.#approvals.values()];
  }

  get verifierRuns(): VerifierRunView[] {
    return [...this.#verifierRuns.values()];
  }

  /** Whether an approval was requested and never decided. */
  get pendingApproval(): boolean {
    return this.approvals.some((approval) => approval.decision === undefined);
  }
}
