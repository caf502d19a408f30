import type { JsonValue, VerifierVerdict, YokeEvent } from "@yoke/protocol";
import { callSignature, type SignatureRules } from "./call-signature.js";

export { callSignature } from "./call-signature.js";

/** One entry of the loop detector's history, in journal order. */
export type LoopEntry =
  | { readonly kind: "call"; readonly toolName: string; readonly toolRevision: string | undefined; readonly signature: string }
  | { readonly kind: "steer" };

/**
 * What the loop decides with beyond the folded `RunState`, kept current from every event the
 * run's state folds (the journal on load, each draft as it is committed), so a resume knows
 * exactly what the uninterrupted run knew.
 */
export interface RunFacts {
  /** Settled calls and steering since the last input from a person (an operator or an interrupt). */
  readonly loop: LoopEntry[];
  /** What loop detection counts in `loop`, kept as it grows (a turn's check costs the same on the 1,000th turn as on the first): calls per signature, and the steers. */
  readonly loopIndex: { readonly counts: Map<string, number>; steers: number };
  /** Calls proposed and not settled yet, by action id. */
  readonly openActions: Map<string, { readonly toolName: string; readonly toolRevision: string | undefined; readonly input: JsonValue }>;
  /** The verifier gate of the current turn's answer. */
  gate: GateFacts;
  /** Turns whose answer failed the gate: how many retries were used. */
  readonly failedGateTurns: Set<string>;
  /** Responses in a row of the current turn that stopped on `max_tokens`. */
  maxTokens: { turnId: string | undefined; count: number };
  /** Interrupts landed in the run (`interrupt.landed`), by id. */
  readonly landedInterrupts: Set<string>;
  /** What a tool declares about its arguments for the signatures (`callSignature`), by tool name. */
  readonly rulesOf: (toolName: string) => SignatureRules | undefined;
}

export interface GateFacts {
  readonly turnId: string | undefined;
  /** Verifiers started and not finished, by verifier id. */
  readonly started: Map<string, { readonly verifierRunId: string; readonly replaySafe: boolean }>;
  /** Verdicts journaled, by verifier id. */
  readonly finished: Map<string, VerifierVerdict>;
}

/**
 * Empty facts. `rulesOf`: a tool's signature rules by name; from the harness's configuration
 * (never from what a run resolved), so the same harness computes the same signatures live and
 * on a resume.
 */
export function createRunFacts(rulesOf: (toolName: string) => SignatureRules | undefined = () => undefined): RunFacts {
  return {
    rulesOf,
    loop: [],
    loopIndex: { counts: new Map(), steers: 0 },
    openActions: new Map(),
    gate: emptyGate(undefined),
    failedGateTurns: new Set(),
    maxTokens: { turnId: undefined, count: 0 },
    landedInterrupts: new Set(),
  };
}

function emptyGate(turnId: string | undefined): GateFacts {
  return { turnId, started: new Map(), finished: new Map() };
}

/** Folds one event of the run into `facts`. */
export function observeRunFacts(facts: RunFacts, event: YokeEvent): void {
  switch (event.type) {
    case "action.proposed":
    case "action.admitted":
    case "action.approval_requested": {
      const data = event.data as { actionId: string; toolName: string; input: JsonValue; toolRevision?: string };
      facts.openActions.set(data.actionId, { toolName: data.toolName, toolRevision: data.toolRevision, input: data.input });
      return;
    }
    case "action.committed":
      settle(facts, event.data.actionId, event.data.result);
      return;
    case "action.failed":
      if (!event.data.retrying) settle(facts, event.data.actionId, event.data.result);
      return;
    case "loop.detected":
      if (event.data.response === "steer") {
        facts.loop.push({ kind: "steer" });
        facts.loopIndex.steers++;
      }
      return;
    case "input.added":
      if (event.data.source === "operator" || event.data.source === "interrupt") {
        facts.loop.length = 0;
        facts.loopIndex.counts.clear();
        facts.loopIndex.steers = 0;
      }
      return;
    case "model.responded": {
      const { turnId, response } = event.data;
      if (facts.maxTokens.turnId !== turnId) facts.maxTokens = { turnId, count: 0 };
      facts.maxTokens.count = response.stopReason === "max_tokens" ? facts.maxTokens.count + 1 : 0;
      return;
    }
    case "verifier.started":
      if (facts.gate.turnId !== event.data.turnId) facts.gate = emptyGate(event.data.turnId);
      facts.gate.started.set(event.data.verifierId, { verifierRunId: event.data.verifierRunId, replaySafe: event.data.replaySafe });
      return;
    case "verifier.finished": {
      if (facts.gate.turnId !== event.data.turnId) facts.gate = emptyGate(event.data.turnId);
      const { verdict } = event.data;
      facts.gate.started.delete(verdict.verifierId);
      facts.gate.finished.set(verdict.verifierId, verdict as VerifierVerdict);
      if (!verdict.passed) facts.failedGateTurns.add(event.data.turnId);
      return;
    }
    case "interrupt.landed":
      facts.landedInterrupts.add(event.data.interruptId);
      return;
    // Other events change no fact.
    default:
      return;
  }
}

function settle(facts: RunFacts, actionId: string, result: unknown): void {
  const action = facts.openActions.get(actionId);
  if (action === undefined) return;
  facts.openActions.delete(actionId);
  const signature = callSignature(action.toolRevision ?? `name:${action.toolName}`, action.input, result, facts.rulesOf(action.toolName));
  facts.loop.push({ kind: "call", toolName: action.toolName, toolRevision: action.toolRevision, signature });
  facts.loopIndex.counts.set(signature, (facts.loopIndex.counts.get(signature) ?? 0) + 1);
}
