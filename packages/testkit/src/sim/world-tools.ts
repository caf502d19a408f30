import type { SideEffectClass } from "@yoke/protocol";
import type { EffectLedger } from "../effect-ledger.js";
import { simulatedTool, type SimulatedFault, type SimulatedToolDefinition } from "../tool-simulators.js";
import type { SeededRandom } from "./prng.js";
import type { VirtualTime } from "./virtual-time.js";

/** How one world tool misbehaves, attempt by attempt. */
export type WorldToolBehaviour =
  | "ok"
  | "ack-lost-once"
  | "duplicate-receipt"
  | "stream-cut-once"
  | "always-fails"
  | "stale-revision"
  | "hangs-before-commit-once"
  | "hangs-after-commit-once";

/** A tool of a simulated world: its definition (for `defineTool`) and what was drawn for it. */
export interface WorldTool {
  readonly definition: SimulatedToolDefinition;
  readonly behaviour: WorldToolBehaviour;
  /** Every call of it is parked for a person's approval by the world's policy. */
  readonly needsApproval: boolean;
}

export const WORLD_TOOL_ATTEMPTS = 3;
/** A world tool's deadline; a hanging attempt is cut by it, on the world's clock. */
export const WORLD_TOOL_TIMEOUT_MS = 2_000;

const CLASSES: readonly SideEffectClass[] = ["none", "idempotent", "reversible", "irreversible"];
// A transient fault strikes attempt 1 only, leaving spare attempts; a lasting one strikes all.
const FAULTS: Record<WorldToolBehaviour, readonly SimulatedFault[]> = {
  ok: [],
  "ack-lost-once": ["ack-lost"],
  "duplicate-receipt": ["duplicate-receipt"],
  "stream-cut-once": ["partial-stream"],
  "always-fails": Array.from({ length: WORLD_TOOL_ATTEMPTS }, () => "fail" as const),
  "stale-revision": Array.from({ length: WORLD_TOOL_ATTEMPTS }, () => "stale-revision" as const),
  "hangs-before-commit-once": ["timeout-before-commit"],
  "hangs-after-commit-once": ["timeout-after-commit"],
};
const READ_BEHAVIOURS: readonly WorldToolBehaviour[] = ["ok", "ok", "stream-cut-once", "always-fails", "hangs-before-commit-once"];

/**
 * The tools of a world: `count` simulated tools over `ledger`, each with a side-effect class,
 * a fault behaviour (with `faultRate`: the share of tools that misbehave at all), a
 * reconciler, a compensation and whether it needs approval, all drawn from `random`. Every
 * attempt first takes a seeded time on the world's clock (a pure function of the tool, the
 * action and the attempt, so a resumed world draws the same), which is what orders the
 * concurrent calls of one batch.
 */
export function worldTools(options: {
  random: SeededRandom;
  ledger: EffectLedger;
  time: VirtualTime;
  count: number;
  faultRate: number;
  approvalRate: number;
}): WorldTool[] {
  const { random, ledger, time } = options;
  return Array.from({ length: options.count }, (_, index) => {
    const draw = random.fork(`tool:${index}`);
    const sideEffect = draw.pick(CLASSES);
    const faulty = draw.chance(options.faultRate);
    const behaviour: WorldToolBehaviour = !faulty
      ? "ok"
      : sideEffect === "none"
        ? draw.pick(READ_BEHAVIOURS)
        : draw.pick((Object.keys(FAULTS) as WorldToolBehaviour[]).filter((name) => name !== "ok"));
    const reconcile = sideEffect !== "none" && draw.chance(0.75);
    const compensate = sideEffect === "reversible" ? (draw.chance(0.85) ? "works" : "fails") : undefined;
    const needsApproval = sideEffect !== "none" && draw.chance(options.approvalRate);
    const name = `tool_${index}_${sideEffect}`;
    const slowest = draw.int(1, 400);
    const inner = simulatedTool({
      name,
      sideEffect,
      ledger,
      faults: FAULTS[behaviour],
      reconcile,
      maxAttempts: WORLD_TOOL_ATTEMPTS,
      timeoutMs: WORLD_TOOL_TIMEOUT_MS,
      ...(compensate === undefined ? {} : { compensate }),
    });
    const definition: SimulatedToolDefinition = {
      ...inner,
      async execute(input, context) {
        const took = random.fork(`took:${name}:${context.idempotencyKey}:${context.attempt}`).int(0, slowest);
        await time.sleep(took, context.signal);
        return inner.execute(input, context);
      },
    };
    return { definition, behaviour, needsApproval };
  });
}
