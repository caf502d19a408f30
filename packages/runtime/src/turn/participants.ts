import { runBudget } from "../budget/budget-participant.js";
import { policyAdmission } from "../policy-participant.js";
import { approvals } from "../approvals.js";
import { interruptCancel, interruptInput } from "../interrupts.js";
import { callerCancel } from "../loop/cancel-run.js";
import { outputLimit } from "../loop/output-limit.js";
import { turnLimit } from "../loop/turn-limit.js";
import { loopDetection } from "../loop-detection.js";
import { verifierGate } from "../verification/gate.js";
import { commitLog, compiledContext, eventRelay, runFacts } from "./observers.js";
import type { TurnParticipant } from "./participant.js";
import { streamRelay } from "../stream/run-taps.js";

/**
 * The turn transaction's participants, in the order they act (docs/decisions/0022). At a
 * turn boundary each `boundary` is asked in this order until one ends the run; the notes of
 * the others go before the next turn's request in this order. A proposed call goes to each
 * `admit` in this order until one decides it; an answer goes to each `gate` in this order
 * until one decides. Ended work goes to every `settle`, each folded draft to every `folded`,
 * each stored commit to every `committed`, in this order.
 *
 * A new participant (a guardrail, a rate limiter, a budget dimension's carrier) is one
 * module and one line here.
 */
export const TURN_PARTICIPANTS: readonly TurnParticipant[] = [
  // Cancellation first: a cancelled run starts nothing, whatever else is due.
  callerCancel,
  interruptCancel,
  // The model's own trouble next: a cut call is answered before a loop is judged.
  outputLimit,
  loopDetection,
  // Then the run's budget of turns: an escalated loop outranks it, notes do not.
  turnLimit,
  // A person's input lands last, right before the request that carries it.
  interruptInput,
  // What a model call reserves before it is requested.
  runBudget,
  // What decides a response's calls: a person's answer for a call parked for one, else the policy.
  approvals,
  policyAdmission,
  // Gates: what judges an answer before it completes the run.
  verifierGate,
  // Observers: what the live state folds, then what the journal stored, in this order.
  runFacts,
  compiledContext,
  commitLog,
  eventRelay,
  streamRelay,
];
