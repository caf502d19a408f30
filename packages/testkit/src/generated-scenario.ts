import type { SideEffectClass } from "@yoke/protocol";
import type { EffectLedger } from "./effect-ledger.js";
import type { ReferenceScenario } from "./reference-scenario.js";
import { callTools, say, type ScriptedStep } from "./scripted-model-steps.js";
import { simulatedTool, type SimulatedFault, type SimulatedToolDefinition } from "./tool-simulators.js";

export interface GeneratedScenarioOptions {
  /** Tool turns before the final answer. Default 3. */
  readonly turns?: number;
  /** Calls per tool turn: 1 to this many. Default 4. */
  readonly maxCallsPerTurn?: number;
  /** Tools to choose from. Default 5. */
  readonly tools?: number;
  /** Resources the calls write or read: the fewer, the more calls conflict. Default 3. */
  readonly resources?: number;
}

/** How one generated tool behaves, attempt by attempt; see `generatedScenario`. */
export type GeneratedBehaviour = "ok" | "ack-lost-once" | "duplicate-receipt" | "stream-cut-once" | "always-fails" | "stale-revision";

const ATTEMPTS = 3;
const CLASSES: readonly SideEffectClass[] = ["none", "idempotent", "reversible", "irreversible"];
const BEHAVIOURS: Record<GeneratedBehaviour, readonly SimulatedFault[]> = {
  ok: [],
  "ack-lost-once": ["ack-lost"],
  "duplicate-receipt": ["duplicate-receipt"],
  "stream-cut-once": ["partial-stream"],
  "always-fails": Array.from({ length: ATTEMPTS }, () => "fail" as const),
  "stale-revision": Array.from({ length: ATTEMPTS }, () => "stale-revision" as const),
};

/**
 * A random scenario of action transactions over an effect ledger, the same for the same
 * `seed`: a set of simulated tools (side-effect class, reconciler, compensation and fault
 * behaviour drawn at random), then `turns` batches of calls on a few shared resources (so
 * writes conflict), then a final answer. The shape is `referenceScenario`'s, so a scenario
 * script can run either, and `runCrashInjector` can kill it at every durable append.
 *
 * Behaviours are chosen so that a crash-free run and a run killed once and resumed must end
 * in the same state, unless an action is escalated: a transient fault strikes attempt 1 only
 * and leaves a spare attempt for one that a kill consumes (3 attempts in all); a lasting
 * one strikes every attempt. Timeouts are left out: they wait on the wall clock.
 *
 * @example
 * ```ts
 * const scenario = generatedScenario(createEffectLedger(join(dir, "ledger.jsonl")), 7);
 * const harness = createHarness({ journal, provider: createScriptedModel(scenario.steps()), tools: scenario.tools.map(defineTool), tenantId });
 * await harness.start(scenario.task);
 * ```
 */
export function generatedScenario(ledger: EffectLedger, seed: number, options: GeneratedScenarioOptions = {}): ReferenceScenario {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const chance = (probability: number) => random() < probability;
  const tools: SimulatedToolDefinition[] = [];
  const described: string[] = [];
  for (let index = 0; index < (options.tools ?? 5); index++) {
    const sideEffect = pick(CLASSES);
    // A tool with no effect has nothing to reconcile, undo, or lose an answer of.
    const behaviour: GeneratedBehaviour =
      sideEffect === "none" ? pick(["ok", "stream-cut-once", "always-fails"] as const) : pick(Object.keys(BEHAVIOURS) as GeneratedBehaviour[]);
    const reconcile = sideEffect !== "none" && chance(0.75);
    const compensate = sideEffect === "reversible" ? (chance(0.85) ? "works" : "fails") : undefined;
    const name = `tool_${index}_${sideEffect}`;
    tools.push(
      simulatedTool({
        name,
        sideEffect,
        ledger,
        faults: BEHAVIOURS[behaviour],
        reconcile,
        maxAttempts: ATTEMPTS,
        ...(compensate === undefined ? {} : { compensate }),
      }),
    );
    described.push(`${name} (${behaviour}${reconcile ? ", reconciled" : ""}${compensate ? `, compensation ${compensate}` : ""})`);
  }
  const resources = Array.from({ length: options.resources ?? 3 }, (_, index) => `resource:${index}`);
  const batches = Array.from({ length: options.turns ?? 3 }, (_, turn) =>
    Array.from({ length: 1 + Math.floor(random() * (options.maxCallsPerTurn ?? 4)) }, (_, call) => ({
      // Pinned ids: a resumed script's model, which restarts its count, proposes the same calls.
      id: `call_${turn + 1}_${call + 1}`,
      name: pick(tools).name,
      args: { resource: pick(resources), value: `turn ${turn + 1} call ${call + 1}` },
    })),
  );
  const steps = (): ScriptedStep[] => [...batches.map((batch) => callTools(batch)), say("All batches are done.")];
  return { task: `Generated scenario ${seed}: ${described.join("; ")}.`, tools, steps };
}

/** Park–Miller: small, and the same sequence on every platform for a seed. */
function seededRandom(seed: number): () => number {
  let state = Math.abs(Math.trunc(seed)) % 2147483647 || 1;
  return () => (state = (state * 48271) % 2147483647) / 2147483647;
}
