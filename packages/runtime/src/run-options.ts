import type { CallSettings, CallSettingsChange } from "@yoke/protocol";
import type { PrincipalOption } from "./harness-options/policy.js";
import type { WaitingAnswerOptions } from "./loop-control.js";
import type { DelegationOption } from "./delegation-types.js";

export interface StartOptions {
  /** Default: a new id. Must be a well-formed run id (`run_…`). */
  runId?: string;
  /**
   * The session this run belongs to. Default: a new session of one. A session that has runs is
   * continued: this run starts only after its last run ended (any outcome), with their
   * conversation before its input (`run.started.continues` pins each earlier run's length and
   * head hash). An unknown id starts a session under that id. Sends to one session are ordered
   * across processes: while its last run has not ended, a start is SESSION_BUSY (retryable,
   * naming that run), or waits with `waitForSession`.
   */
  sessionId?: string;
  /**
   * With `sessionId`, when the session's last run has not ended: `false` (default) fails at
   * once with SESSION_BUSY; `true` waits until it ends; a number waits at most that many ms.
   */
  waitForSession?: boolean | number;
  /**
   * Aborting ends the run `cancelled` at the next safe point (never between a tool call and
   * its result). A model call in flight is abandoned at once, whether or not the provider
   * honours the signal (journaled `model.failed` CANCELLED, its budget settled); a tool call
   * that would take another attempt is not retried.
   */
  signal?: AbortSignal;
  /** Who this run acts for; default: the harness's `principal`. Journaled in `run.started.principal`. */
  principal?: PrincipalOption;
  /**
   * What the task may do, and how many times: grants of tool-name globs (and, optionally,
   * resource and verb globs of the calls' policy facts) with a count each. Journaled in
   * `run.delegated` before the first model call and pinned for the run's life; the policy sees
   * every call's standing (`tuple.delegation`): with `@yoke/policy`, an allowed side effect
   * outside it needs a person. Counts are spent by admitted calls. Default: the harness's
   * `planDelegation`, else none. CONFIG_INVALID when malformed.
   */
  delegation?: DelegationOption;
  /** Model settings for every call of this run, journaled in `run.started` (see `CallSettings`). CONFIG_INVALID naming the field when malformed. */
  settings?: CallSettings;
}

export interface ResumeOptions extends WaitingAnswerOptions {
  signal?: AbortSignal;
  /**
   * The delegation the run was started with, when the caller wants it checked: a resume always
   * decides with the one the run pinned, and refuses another (DELEGATION_CHANGED). Default: not checked.
   */
  delegation?: DelegationOption;
  /**
   * When another process holds the run's lease: `false` (default) fails at once with
   * RUN_LEASE_HELD (retryable); `true` waits until it lapses or is released; a number waits at
   * most that many milliseconds.
   */
  waitForLease?: boolean | number;
  /**
   * Model settings from the next compiled request on: the run's settings with these fields
   * replaced (a field given as `null` dropped: the harness's applies again), journaled
   * (`settings.changed`) before the run goes on, so a later resume without settings keeps them.
   * A request journaled before is sent again as it was. RUN_FINISHED for a finished run.
   */
  settings?: CallSettingsChange;
}

/** `startOrResume`: a start's options with a required run id, and a resume's lease wait. */
export interface StartOrResumeOptions extends StartOptions {
  runId: string;
  waitForLease?: boolean | number;
  /**
   * With a harness built on a journal path (`journal: "./yoke.sqlite"`): `true` creates the
   * journal file when there is none, for the first launch of a program. Default `false`: a
   * path with no journal is JOURNAL_NOT_INITIALIZED, because a journal that vanished (its
   * database, `-wal` and head witness deleted) would otherwise start the run again and repeat
   * every effect it already had. Pass `true` only when you know this is a first launch (a
   * fresh deployment, a new working directory); a journal passed in as an object ignores it
   * (open that with `create: false` where a journal must exist).
   */
  createJournal?: boolean;
}

/** `harness.approve`'s options: who approves, and until when (default: now + `approvalTtlMs`). */
export interface ApproveOptions {
  readonly approver: string;
  /** Epoch ms (the injected clock's) after which the approval no longer lets the action run. */
  readonly expiresAt?: number;
}

/** `harness.deny`'s options: who denies and why (the model is told the reason). */
export interface DenyOptions {
  readonly approver: string;
  readonly reason: string;
}
