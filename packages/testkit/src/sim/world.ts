import { YokeError, sequentialIdSource, type Clock, type IdSource, type JournalV1, type PolicyEngineV1 } from "@yoke/protocol";
import { createMemoryEffectLedger, type EffectLedger } from "../effect-ledger.js";
import type { SimulatedToolDefinition } from "../tool-simulators.js";
import { crashingJournal, type InProcessCrash } from "./crash-in-process.js";
import { seededRandom, type SeededRandom } from "./prng.js";
import { createVirtualTime, type VirtualTime, type VirtualTimers } from "./virtual-time.js";
import { worldModel, type WorldModel } from "./world-model.js";
import { worldPolicy } from "./world-policy.js";
import { worldTools, type WorldTool } from "./world-tools.js";

/** The largest world `createWorld` draws; sizes 1 to this. */
export const MAX_WORLD_SIZE = 8;

/** An interrupt a world sends its run at a moment of its clock (ms after the world starts). */
export interface WorldInterrupt {
  readonly afterMs: number;
  readonly request: { readonly input: string } | { readonly cancel: string };
}

/** How a person answers what a run waits for, in a world. */
export type WorldAnswer = { readonly input: string } | { readonly close: string };

/**
 * Everything a simulated run meets, drawn from one seed and a size: the clock and timers
 * (virtual), ids (sequential), the model's script, the tools with their faults and timings,
 * a crash point, interrupts, approvals and a person's answers, and a budget. The size bounds
 * how much of each there is (turns, calls per turn, tools, faults), so a failing world can be
 * shrunk by drawing it again at a smaller size. `createWorld(seed, size)` twice gives two
 * worlds that behave identically.
 *
 * A world holds no runtime: a `drive(world)` function builds a harness from its parts (see
 * `simulate`).
 */
export interface SimWorld {
  readonly seed: number;
  readonly size: number;
  readonly tenantId: string;
  readonly runId: string;
  /** For the drive's own choices: a stream no part of the world draws from. */
  readonly random: SeededRandom;
  readonly time: VirtualTime;
  readonly clock: Clock;
  readonly timers: VirtualTimers;
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** One id source for every harness of the world, so a harness built after a crash mints no id twice. */
  readonly ids: IdSource;
  readonly ledger: EffectLedger;
  readonly tools: readonly SimulatedToolDefinition[];
  readonly toolPlans: readonly WorldTool[];
  readonly model: WorldModel;
  /** Parks calls to tools that need approval; undefined when no tool does. */
  readonly policy: PolicyEngineV1 | undefined;
  /** Whether the `index`-th approval requested (0-based, in the order they were asked) is granted. */
  grants(index: number): boolean;
  /** How a person answers the `index`-th time the run waits for one (after a refusal, an escalation). */
  answer(index: number): WorldAnswer;
  readonly interrupts: readonly WorldInterrupt[];
  readonly crash: InProcessCrash | undefined;
  /** The journal as the first process sees it: it dies at `crash` (the journal itself when there is none). */
  crashing(journal: JournalV1): JournalV1;
  /**
   * The completion gate, when the world has one: the run's `n`-th final answer (1-based)
   * passes when `n > failuresBeforePass`, so a gate that fails more often than the harness
   * sends failures back ends the run `verification_failed`.
   */
  readonly verifier: { readonly failuresBeforePass: number } | undefined;
  /** Hard budget limits for the run, when the world sets some. */
  readonly budget: { readonly limits: { readonly tool_ops?: number; readonly tokens?: number } } | undefined;
  readonly maxTurns: number;
  /** A line per drawn part, for a failure report. */
  readonly description: readonly string[];
}

export interface CreateWorldOptions {
  readonly tenantId?: string;
  readonly runId?: string;
  /** Epoch ms the world's clock starts at. Default 2026-01-01T00:00:00Z. */
  readonly start?: number;
}

export function createWorld(seed: number, size: number, options: CreateWorldOptions = {}): SimWorld {
  if (!Number.isSafeInteger(seed) || seed < 0) throw new YokeError("CONFIG_INVALID", `createWorld: seed must be a non-negative safe integer, got ${seed}`);
  if (!Number.isInteger(size) || size < 1 || size > MAX_WORLD_SIZE) {
    throw new YokeError("CONFIG_INVALID", `createWorld: size must be an integer from 1 to ${MAX_WORLD_SIZE}, got ${size}`);
  }
  const root = seededRandom(seed);
  const shape = root.fork("shape");
  const time = createVirtualTime({ start: options.start ?? Date.UTC(2026, 0, 1), random: root.fork("ties") });
  const ledger = createMemoryEffectLedger();
  const toolPlans = worldTools({
    random: root.fork("tools"),
    ledger,
    time,
    count: Math.min(5, 1 + Math.ceil(size / 2)),
    faultRate: Math.min(0.6, 0.1 * size),
    approvalRate: size >= 3 ? 0.2 : 0,
  });
  const tools = toolPlans.map((plan) => plan.definition);
  const model = worldModel({
    random: root.fork("model"),
    time,
    tools: tools.map((tool) => tool.name),
    turns: shape.int(1, size),
    maxCalls: Math.min(4, size),
    resources: Math.max(1, 4 - Math.floor(size / 3)),
    oddRate: size >= 2 ? 0.1 : 0,
    errorRate: size >= 2 ? 0.1 : 0,
  });
  const parked = toolPlans.filter((plan) => plan.needsApproval).map((plan) => plan.definition.name);
  const events = root.fork("events");
  const crash: InProcessCrash | undefined =
    size >= 2 && events.chance(0.35) ? { append: events.int(1, 6 + 3 * size), mode: events.pick(["lost", "written"] as const) } : undefined;
  const interrupts: WorldInterrupt[] =
    size >= 4 && events.chance(0.15)
      ? [{ afterMs: events.int(1, 4_000), request: events.chance(0.3) ? { cancel: "the world cancels the run" } : { input: "The world adds a remark." } }]
      : [];
  const budget =
    size >= 3 && events.chance(0.25) ? { limits: events.chance(0.5) ? { tool_ops: events.int(1, 8) } : { tokens: events.int(200, 4_000) } } : undefined;
  const verifier = size >= 3 && events.chance(0.3) ? { failuresBeforePass: events.int(0, 3) } : undefined;
  const description = [
    `seed ${seed}, size ${size}`,
    ...toolPlans.map(
      (plan) =>
        `${plan.definition.name}: ${plan.behaviour}${plan.definition.reconcile ? ", reconciled" : ""}${plan.definition.compensate ? ", compensated" : ""}${plan.needsApproval ? ", needs approval" : ""}`,
    ),
    `script: ${model.script.map((turn) => (turn.kind === "calls" ? `${turn.calls.length} call(s)` : turn.kind)).join(", ")}`,
    ...(crash === undefined ? [] : [`crash at append ${crash.append} (${crash.mode})`]),
    ...interrupts.map((interrupt) => `interrupt at +${interrupt.afterMs} ms: ${"cancel" in interrupt.request ? "cancel" : "input"}`),
    ...(budget === undefined ? [] : [`budget ${JSON.stringify(budget.limits)}`]),
    ...(verifier === undefined ? [] : [`completion gate passes after ${verifier.failuresBeforePass} failure(s)`]),
  ];
  return {
    seed,
    size,
    tenantId: options.tenantId ?? "tenant_sim",
    runId: options.runId ?? "run_sim",
    random: root.fork("drive"),
    time,
    clock: time.clock,
    timers: time.timers,
    sleep: time.sleep,
    ids: sequentialIdSource(),
    ledger,
    tools,
    toolPlans,
    model,
    policy: parked.length === 0 ? undefined : worldPolicy(parked),
    grants: (index) => root.fork(`approval:${index}`).chance(0.7),
    answer: (index) => (root.fork(`answer:${index}`).chance(0.7) ? { input: "Please go on." } : { close: "The person closes the wait." }),
    interrupts,
    crash,
    crashing: (journal) => (crash === undefined ? journal : crashingJournal(journal, crash)),
    verifier,
    budget,
    maxTurns: size + 4,
    description,
  };
}
