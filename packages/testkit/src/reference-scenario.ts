import type { EffectLedger } from "./effect-ledger.js";
import { callTools, say, type ScriptedStep } from "./scripted-model-steps.js";
import { simulatedTool, type SimulatedFault, type SimulatedToolDefinition } from "./tool-simulators.js";

/** The tools of the reference scenario, by name. */
export const REFERENCE_TOOLS = ["warm_cache", "charge_card", "book_hotel", "book_car", "book_flight"] as const;
export type ReferenceToolName = (typeof REFERENCE_TOOLS)[number];

export interface ReferenceScenario {
  readonly task: string;
  /** Tool definitions in `defineTool`'s shape. */
  readonly tools: SimulatedToolDefinition[];
  /** The scripted model's answers: one batch of five calls, then a final answer. */
  readonly steps: () => ScriptedStep[];
}

/**
 * The reference scenario of action transactions, over an effect ledger. One batch proposes:
 * - `warm_cache` — idempotent, no reconciler (a resume may re-run it: `retry_safe`);
 * - `charge_card` — irreversible, with a reconciler that asks the ledger;
 * - `book_hotel`, `book_car` — reversible, with reconcilers and compensations;
 * - `book_flight` — irreversible, fails deliberately (every attempt): the hotel and the car are undone, in
 *   reverse order of commit; the card charge stands.
 * Then the model answers. `faults` adds faults by tool (per attempt), e.g.
 * `{ charge_card: ["ack-lost"] }`.
 *
 * @example
 * ```ts
 * const scenario = referenceScenario(createEffectLedger(join(dir, "ledger.jsonl")));
 * const harness = createHarness({ journal, provider: createScriptedModel(scenario.steps()), tools: scenario.tools.map(defineTool), tenantId });
 * await harness.start(scenario.task);
 * ```
 */
export function referenceScenario(ledger: EffectLedger, faults: Partial<Record<ReferenceToolName, readonly SimulatedFault[]>> = {}): ReferenceScenario {
  const tools = [
    simulatedTool({ name: "warm_cache", sideEffect: "idempotent", ledger, faults: faults.warm_cache ?? [] }),
    simulatedTool({ name: "charge_card", sideEffect: "irreversible", ledger, reconcile: true, faults: faults.charge_card ?? [] }),
    simulatedTool({ name: "book_hotel", sideEffect: "reversible", ledger, reconcile: true, compensate: "works", faults: faults.book_hotel ?? [] }),
    simulatedTool({ name: "book_car", sideEffect: "reversible", ledger, reconcile: true, compensate: "works", faults: faults.book_car ?? [] }),
    simulatedTool({ name: "book_flight", sideEffect: "irreversible", ledger, reconcile: true, faults: faults.book_flight ?? ["fail", "fail", "fail"] }),
  ];
  const steps = (): ScriptedStep[] => [
    callTools([
      { name: "warm_cache", args: { resource: "cache:fares", value: "warm" } },
      { name: "charge_card", args: { resource: "card:order-1", value: "420.00" } },
      { name: "book_hotel", args: { resource: "hotel:lisbon", value: "2 nights" } },
      { name: "book_car", args: { resource: "car:lisbon", value: "compact" } },
      { name: "book_flight", args: { resource: "flight:TP123", value: "1 seat" } },
    ]),
    say("The flight could not be booked, so the hotel and the car were cancelled; the card was charged once."),
  ];
  return { task: "Book the Lisbon trip: warm the fare cache, charge the card, book hotel, car and flight.", tools, steps };
}
