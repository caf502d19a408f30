import type { ToolLoopPolicy, VerifierV1 } from "@yoke/protocol";

/** Repeats of one call signature that count as a loop (see `LoopDetectionOptions.threshold`). */
export const DEFAULT_LOOP_THRESHOLD = 3;
/** The longest cycle of call signatures detected (see `LoopDetectionOptions.cycle`). */
export const DEFAULT_LOOP_CYCLE = 3;
/** Failed verifier gates sent back to the model before the run ends `verification_failed`. */
export const DEFAULT_VERIFIER_RETRIES = 2;
/** Responses in a row cut by `max_tokens` in one turn that are continued (see `maxTokensContinuations`). */
export const DEFAULT_MAX_TOKENS_CONTINUATIONS = 3;

/**
 * Loop detection: a call's signature is its tool revision digest, its canonical arguments and
 * the digest of its result. The same signature `threshold` times, or a cycle of 2..`cycle`
 * signatures repeated twice (A,B,A,B), since the last input from a person, first steers the
 * model (`loop.detected` response `steer` + `input.added` source `loop-detection`), then, on
 * a repeat after the steering, escalates (`loop.detected` response `escalate` + `run.waiting`
 * kind `escalation`). Rebuilt from the journal on resume, so a resume decides the same.
 *
 * @example
 * ```ts
 * createHarness({ provider, tools, loopDetection: { threshold: 4, perTool: { poll_queue: { optOut: "polling is the point" } } } });
 * ```
 */
export interface LoopDetectionOptions {
  /** Repeats of one signature that count as a loop. Default 3, at least 2. */
  readonly threshold?: number;
  /** Longest cycle (in calls) detected when it repeats twice. Default 3; 1 turns cycles off. */
  readonly cycle?: number;
  /** Per tool name, overriding the tool declaration's own `loop`. */
  readonly perTool?: Readonly<Record<string, ToolLoopPolicy>>;
}

/**
 * The harness options of the stop-condition contract (mixed into `HarnessOptions`).
 *
 * @example
 * ```ts
 * const harness = createHarness({
 *   provider, tools, workspace: "/srv/checkout",
 *   verifiers: [commandVerifier({ id: "tests", command: "pnpm", args: ["test"] })],
 *   verifierRetries: 1,
 *   maxTokensContinuations: 2,
 * });
 * ```
 */
export interface LoopControlOptions {
  /**
   * The completion gate: every `end_turn` answer must pass every verifier (in order; the
   * first failure stops the gate). Each run of a verifier is journaled (`verifier.started`
   * before it runs, `verifier.finished` with its verdict). A failure goes back to the model
   * (`input.added` source `verifier`: the verifier's id, reason and details) `verifierRetries`
   * times, then the run ends `verification_failed`; a verdict with `escalate: true` makes the
   * run wait for a person (`run.waiting` kind `escalation`). A passing gate ends the run
   * `verified_success`. `checkCompletion` runs first, as a verifier of kind `check`.
   */
  verifiers?: VerifierV1 | readonly VerifierV1[];
  /** Failed gates sent back to the model before the run ends `verification_failed`. Default 2. */
  verifierRetries?: number;
  /**
   * Responses in a row that stop on `max_tokens` in one turn and are continued (asked again
   * in the same turn). Default 3. One more ends the run `escalated` (the model cannot finish
   * within its output limit: a person has to raise it or change the task).
   */
  maxTokensContinuations?: number;
  /** Loop detection (see `LoopDetectionOptions`); `false` turns it off. Default: on, with the defaults. */
  loopDetection?: LoopDetectionOptions | false;
  /** The directory verifiers work in (`VerifierInput.workspace`), e.g. a checkout a command verifier runs tests in. */
  workspace?: string;
}

/**
 * A run waiting for a person (`WaitingRunResult.waiting`): the model refused (`refusal`), a
 * content filter stopped it (`content_filter`), or the runtime escalated (`escalation`: a
 * loop steering did not break, a verifier that asked for a person or was cut short). `detail`
 * says why. Answer with `harness.resume(runId, { input })` (the run goes on), or close it with
 * `harness.resume(runId, { close: reason })` (it ends `refused` for a refusal or content
 * filter, `escalated` otherwise).
 *
 * @example
 * ```ts
 * const result = await harness.start("Delete the prod database");
 * if (result.waiting?.kind === "human") await harness.resume(result.runId, { close: "not doing that" });
 * ```
 */
export interface HumanWaiting {
  readonly kind: "human";
  /** Always empty: a person is asked for input, not for approvals (kept so `waiting.approvals` reads on every wait). */
  readonly approvals: readonly [];
  readonly reason: "refusal" | "content_filter" | "escalation";
  readonly detail: string;
}

/** `resume`'s answer to a run waiting for a person (see `HumanWaiting`); at most one of the two. */
export interface WaitingAnswerOptions {
  /** The person's input: journaled as `input.added` (source `operator`), and the run goes on. RUN_NOT_WAITING if the run does not wait for a person. */
  input?: string;
  /** Closes the wait: the run ends `refused` (a refusal or content filter) or `escalated` (an escalation), with this reason. RUN_NOT_WAITING as `input`. */
  close?: string;
}

export interface ResolvedLoopDetection {
  readonly threshold: number;
  readonly cycle: number;
  readonly perTool: Readonly<Record<string, ToolLoopPolicy>>;
}

export interface LoopControl {
  /** The gate's verifiers in order: the `checkCompletion` adapter first, when there is one. */
  readonly verifiers: readonly VerifierV1[];
  readonly verifierRetries: number;
  readonly maxTokensContinuations: number;
  readonly loopDetection: ResolvedLoopDetection | undefined;
  readonly workspace: string | undefined;
}

/** What `harness.interrupt` asks: input for the model, or the run's cancellation with a reason. */
export type InterruptRequestOptions = { readonly input: string } | { readonly cancel: string };

/** One request read from a run's interrupt inbox. */
export interface InterruptRequest {
  readonly interruptId: string;
  readonly inboxSeq: number;
  readonly kind: "input" | "cancel";
  readonly text: string;
}

/** How often a run's owner reads its inbox while a model call is in flight (`HarnessOptions.interrupts.pollMs`). */
export const DEFAULT_INTERRUPT_POLL_MS = 500;

/**
 * The runs a harness is driving now, by run id: each one's controller, which a cancel sent
 * through this harness aborts (with the request as the reason) to cut its model call short.
 */
export type LiveRuns = Map<string, Set<AbortController>>;

/** `HarnessDeps.interrupts`: the inbox poll interval while a model call is in flight, and the runs this harness drives. */
export interface ResolvedInterrupts {
  readonly pollMs: number;
  readonly live: LiveRuns;
}

/** A run's interrupt inbox as one process last read it: its length and every request in it. */
export interface InterruptInbox {
  length: number;
  readonly requests: InterruptRequest[];
}
