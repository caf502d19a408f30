import type { ApprovalRecord, RunState, YokeEvent } from "@yoke/protocol";
import type { InterruptRequestOptions } from "./loop-control.js";
import type { RunResult, WaitingRunResult } from "./run-result.js";
import type { UserInput } from "./user-input.js";
import type { ApproveOptions, DenyOptions, ResumeOptions, StartOptions, StartOrResumeOptions } from "./run-options.js";
import type { RunStream, StreamOptions } from "./stream/run-stream-types.js";

/**
 * The agent loop over one journal, provider and tool set. Every state change is journaled
 * before it is acted on, so any run can be resumed from its log by a fresh harness.
 *
 * @example
 * ```ts
 * const { runId, outcome } = await harness.start("Summarize notes.txt");
 * // after a crash, in a new process:
 * const result = await harness.resume(runId);
 * for await (const event of harness.events(runId)) {
 *   if (event.type === "run.failed") console.log(event.data.code, event.data.requestId);
 * }
 * ```
 */
export interface Harness<Output = unknown> {
  /**
   * Starts a run and drives it to an outcome, or until it waits for a person (`result.waiting`: an approval, a refusal, a content filter, an escalation). Rejects on a non-retryable provider error (resume later).
   *
   * `input` is a task string or a list of user messages (CONFIG_INVALID naming what is wrong
   * otherwise). With `options.sessionId` of a session that has runs, the run continues the
   * session: it starts once the session's last run has ended, and the model sees the earlier
   * runs' conversation (inputs, answers, tool calls and results) before the new input, through
   * the same context compiler (compaction, budgets, manifests); `yoke request` rebuilds it.
   * Sends to one session are ordered across processes: SESSION_BUSY (retryable, naming the
   * run not ended yet) or, with `waitForSession`, a wait.
   *
   * @example
   * ```ts
   * const first = await harness.start("What is in notes.txt?", { sessionId: "session_support_42" });
   * const next = await harness.start("Summarize it in one line.", { sessionId: first.state.sessionId });
   * ```
   */
  start(input: UserInput, options?: StartOptions): Promise<RunResult<Output> | WaitingRunResult>;
  /**
   * `start`, with the run's live output: an async iterable of typed parts as they arrive
   * (text, reasoning and tool-call argument deltas while the model answers; then, once durable,
   * each response, tool result, approval request, wait and outcome), and `result`, what `start`
   * returns. Deltas are ephemeral; every other part is read from the journal after it is
   * durable. A slow or absent reader never holds the run back (`maxBufferedDeltas`).
   * Breaking out of the loop detaches; `cancel(reason)` cancels the run. See `RunStream`.
   *
   * @example
   * ```ts
   * const stream = harness.stream("Summarize notes.txt");
   * for await (const part of stream) if (part.type === "text-delta") process.stdout.write(part.text);
   * const { outcome } = await stream.result;
   * ```
   */
  stream(task: Parameters<Harness<Output>["start"]>[0], options?: StartOptions & StreamOptions): RunStream<Output>;
  /**
   * `resume`, with the run's live output (as `stream`), replayed from the run's first event,
   * then live. When a stream of this harness already drives the run (a page reloaded while
   * the run goes on), it follows that one instead of resuming: its replay and live parts,
   * until that stream's call returns. A separate method from `stream` because its first
   * argument is a run id and its options a resume's (`input`, `close`, `waitForLease`).
   */
  resumeStream(runId: string, options?: ResumeOptions & StreamOptions): RunStream<Output>;
  /** Continues a run from its journal; a finished run returns its outcome without calling anything. RUN_NOT_FOUND if unknown. */
  resume(runId: string, options?: ResumeOptions): Promise<RunResult<Output> | WaitingRunResult>;
  /**
   * Starts run `options.runId` with `task` if the journal has no such run, else resumes it:
   * one call that is safe to repeat after a crash at any point, including before the run's
   * first append. Both paths hold the run's lease, so two callers never both start it. On a
   * journal path with no journal it refuses (JOURNAL_NOT_INITIALIZED) unless
   * `createJournal: true` asks for a new one.
   */
  startOrResume(input: UserInput, options: StartOrResumeOptions): Promise<RunResult<Output> | WaitingRunResult>;
  /**
   * Approves a parked action for exactly the binding it was requested with (`approval.granted`,
   * journaled under the run's lease), until `expiresAt` (default now + `approvalTtlMs`). The
   * action runs on the next `resume`, if the binding still holds just before dispatch (same
   * arguments, tool revision, resource revision, policy revision, tenant, principal, not
   * expired); otherwise it is voided and the model is told. APPROVAL_NOT_FOUND for an id no
   * parked action waits on (unknown or already decided); RUN_FINISHED, RUN_NOT_FOUND,
   * RUN_LEASE_HELD as for `resume`.
   *
   * @example
   * ```ts
   * await harness.approve(runId, approvalId, { approver: "ops@example.com" });
   * const result = await harness.resume(runId);
   * ```
   */
  approve(runId: string, approvalId: string, options: ApproveOptions): Promise<ApprovalRecord>;
  /**
   * Denies a parked action (`approval.denied`); on `resume` it fails, not dispatched
   * (APPROVAL_DENIED with the reason, shown to the model), and the run goes on. Errors as `approve`.
   *
   * @example
   * ```ts
   * await harness.deny(runId, approvalId, { approver: "ops@example.com", reason: "unknown payee" });
   * ```
   */
  deny(runId: string, approvalId: string, options: DenyOptions): Promise<ApprovalRecord>;
  /**
   * Interrupts a run, from this process or any other sharing the journal: `{ input }` adds a
   * person's input (`input.added` source `interrupt`) at the run's next turn boundary (or
   * answers a wait); `{ cancel: reason }` ends it `cancelled` at its next step, never between
   * a tool call and its result (the batch in flight settles first). A cancel cuts a model call
   * in flight short (`model.failed` CANCELLED, its budget settled): at once when this harness
   * drives the run, else within `interrupts.pollMs`. The request goes to the
   * run's interrupt inbox (a stream beside the run that needs no lease); the run's owner lands
   * it and acknowledges it (`interrupt.landed`) in the same append, so it lands exactly once,
   * also across a crash. A run nobody drives lands it on its next `resume`. RUN_NOT_FOUND,
   * RUN_FINISHED.
   *
   * @example
   * ```ts
   * await harness.interrupt(runId, { input: "Use the staging database, not prod." });
   * await harness.interrupt(runId, { cancel: "the customer withdrew the request" });
   * ```
   */
  interrupt(runId: string, options: InterruptRequestOptions): Promise<{ readonly interruptId: string }>;
  /** The run's state, folded from its journal. RUN_NOT_FOUND if unknown. */
  getState(runId: string): Promise<RunState>;
  /**
   * The run's events, streamed from the journal, each validated once and typed (the
   * `YokeEvent` union: `switch (event.type)` types `event.data`). RUN_NOT_FOUND if unknown;
   * EVENT_INVALID for an event that is not one of Yoke's.
   */
  events(runId: string): AsyncIterable<YokeEvent>;
  /**
   * Closes what the harness opened itself: the SQLite journal of `journal: "<path>"`. A
   * journal passed in as an object is the caller's and stays open. Calls after `close()`
   * that need the journal reject with JOURNAL_CLOSED.
   *
   * @example
   * ```ts
   * const harness = createHarness({ journal: "./yoke.sqlite", provider });
   * const { runId } = await harness.start("Summarize notes.txt");
   * await harness.close(); // a later harness on "./yoke.sqlite" can resume(runId)
   * ```
   */
  close(): Promise<void>;
}
