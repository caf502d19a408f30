/**
 * The action transaction as a pure state machine. One tool call the runtime accepts becomes
 * one action; each attempt to perform it is an attempt under the same action id.
 *
 * ```
 * proposed → validated → authorized → leased → executing → committed | uncertain | failed
 * (none) --admitted--> executing     (the five admission steps above, attempt 1, in one event)
 * (none) --approval_requested--> awaiting_approval   (proposed, validated, then parked for a person)
 * awaiting_approval --authorized--> authorized      (an approval that still binds, checked before dispatch)
 * uncertain --reconciled(applied)--> committed
 * uncertain --reconciled(not_applied | retry_safe)--> authorized   (a new attempt may be leased)
 * uncertain --reconciled(unknown)--> uncertain                     (the run escalates)
 * failed (retryable) --leased--> leased                            (a new attempt)
 * committed → compensating → compensated | compensation_failed
 * ```
 *
 * Every state before `executing` may also go to `failed` (the effect never started): a denied
 * or voided approval is `failed`, not dispatched.
 *
 * `action.admitted` is the common case written once: a new action proposed, validated,
 * authorized, leased for attempt 1 and executing, all in one transaction. It is applied as
 * those five transitions in order, so it is legal exactly where they are (from no action).
 */
export const ACTION_STATES = [
  "proposed",
  "validated",
  "awaiting_approval",
  "authorized",
  "leased",
  "executing",
  "committed",
  "uncertain",
  "failed",
  "compensating",
  "compensated",
  "compensation_failed",
] as const;
export type ActionState = (typeof ACTION_STATES)[number];

/** What a reconciliation may answer, plus `retry_safe`: the side-effect class makes a new attempt harmless. */
export const RECONCILE_VERDICTS = ["applied", "not_applied", "unknown", "retry_safe"] as const;
export type ReconcileVerdict = (typeof RECONCILE_VERDICTS)[number];

/** The event types that move an action, in the order of the happy path first. */
export const ACTION_EVENT_TYPES = [
  "action.admitted",
  "action.proposed",
  "action.validated",
  "action.approval_requested",
  "action.authorized",
  "action.leased",
  "action.executing",
  "action.committed",
  "action.uncertain",
  "action.failed",
  "action.reconciled",
  "action.compensating",
  "action.compensated",
  "action.compensation_failed",
] as const;
/** One of ACTION_EVENT_TYPES. */
export type ActionEventType = (typeof ACTION_EVENT_TYPES)[number];

/** The part of an action event the state machine looks at. */
export type ActionTransitionInput =
  | { readonly type: Exclude<ActionEventType, "action.leased" | "action.failed" | "action.reconciled"> }
  | { readonly type: "action.leased"; readonly attempt: number }
  | { readonly type: "action.failed"; readonly retryable: boolean }
  | { readonly type: "action.reconciled"; readonly verdict: ReconcileVerdict };

/** Where one action stands. */
export interface ActionStatus {
  readonly state: ActionState;
  /** Attempts leased so far (0 before the first lease). */
  readonly attempt: number;
  /** In state `failed`: whether a new attempt may be leased. */
  readonly retryable: boolean;
}

/** What `transitionAction` answers: the next status, or why the event is illegal where the action stands. */
export type ActionTransitionResult = { readonly ok: true; readonly status: ActionStatus } | { readonly ok: false; readonly reason: string };

const NOT_DISPATCHED: ReadonlySet<ActionState> = new Set(["proposed", "validated", "awaiting_approval", "authorized", "leased"]);

/** True in a state no event can leave (an uncertain action waits for reconciliation, so it is not final). */
export function isFinalActionState(state: ActionState): boolean {
  return state === "committed" || state === "compensated" || state === "compensation_failed" || state === "failed";
}

/**
 * The one legal-transition function: the next status, or why the event is illegal here.
 * Never throws, so a scheduler can check every draft before it is journaled and a fold can
 * refuse a journal that holds an illegal transition.
 *
 * @example
 * ```ts
 * let result = transitionAction(undefined, { type: "action.proposed" });
 * result = transitionAction(result.ok ? result.status : undefined, { type: "action.committed" });
 * result; // { ok: false, reason: "action.committed is not legal in state proposed" }
 * ```
 */
export function transitionAction(status: ActionStatus | undefined, event: ActionTransitionInput): ActionTransitionResult {
  if (status === undefined) {
    if (event.type === "action.admitted") return ADMITTED;
    if (event.type === "action.approval_requested") return ok({ state: "awaiting_approval", attempt: 0, retryable: false });
    return event.type === "action.proposed" ? ok({ state: "proposed", attempt: 0, retryable: false }) : illegal(event.type, "none");
  }
  const { state } = status;
  const to = (next: ActionState, changes: Partial<ActionStatus> = {}): ActionTransitionResult => ok({ ...status, retryable: false, ...changes, state: next });
  switch (event.type) {
    case "action.proposed":
    case "action.admitted":
    case "action.approval_requested":
      break;
    case "action.validated":
      if (state === "proposed") return to("validated");
      break;
    case "action.authorized":
      if (state === "validated" || state === "awaiting_approval") return to("authorized");
      break;
    case "action.leased":
      if (event.attempt !== status.attempt + 1) {
        return { ok: false, reason: `action.leased names attempt ${event.attempt}; the next attempt is ${status.attempt + 1}` };
      }
      if (state === "authorized" || (state === "failed" && status.retryable)) return to("leased", { attempt: event.attempt });
      break;
    case "action.executing":
      if (state === "leased") return to("executing");
      break;
    case "action.committed":
    case "action.uncertain":
      if (state === "executing") return to(event.type === "action.committed" ? "committed" : "uncertain");
      break;
    case "action.failed":
      if (state === "executing" || NOT_DISPATCHED.has(state)) return to("failed", { retryable: event.retryable });
      break;
    case "action.reconciled":
      if (state !== "uncertain") break;
      if (event.verdict === "applied") return to("committed");
      if (event.verdict === "unknown") return to("uncertain");
      return to("authorized");
    case "action.compensating":
      if (state === "committed") return to("compensating");
      break;
    case "action.compensated":
    case "action.compensation_failed":
      if (state === "compensating") return to(event.type === "action.compensated" ? "compensated" : "compensation_failed");
      break;
  }
  return illegal(event.type, state);
}

/** `action.admitted`: the five admission transitions of a new action, each through this machine. */
const ADMISSION: readonly ActionTransitionInput[] = [
  { type: "action.proposed" },
  { type: "action.validated" },
  { type: "action.authorized" },
  { type: "action.leased", attempt: 1 },
  { type: "action.executing" },
];

// Mutation testing (pnpm mutate) reports the initial reason and the early return below as
// surviving: they are equivalent mutants. ADMISSION from no action always succeeds (the
// transition table test pins every step), so neither branch can be observed.
function admitted(): ActionTransitionResult {
  let result: ActionTransitionResult = { ok: false, reason: "no admission step" };
  for (const step of ADMISSION) {
    result = transitionAction(result.ok ? result.status : undefined, step);
    if (!result.ok) return result;
  }
  return result.ok ? { ok: true, status: Object.freeze({ ...result.status }) } : result;
}

/** Computed once: the same five transitions from no action always end in the same status. */
const ADMITTED: ActionTransitionResult = Object.freeze(admitted());

function ok(status: ActionStatus): ActionTransitionResult {
  return { ok: true, status };
}

function illegal(type: string, state: string): ActionTransitionResult {
  return { ok: false, reason: `${type} is not legal in state ${state}` };
}
