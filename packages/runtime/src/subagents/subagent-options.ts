import { BudgetAmountsSchema, YokeError, type BudgetAmounts, type SchemaLike, type VerifierV1 } from "@yoke/protocol";
import { z } from "zod/v4";
import { claimsEvidenceVerifier } from "./claims-evidence.js";
import type { ForkSource } from "./fork-source.js";

/** The name of the runtime-provided tool that starts a child run. */
export const SPAWN_SUBAGENT = "spawn_subagent";

/**
 * The default result of a child run: claims, each resting on at least one evidence reference
 * the child's journal holds: a tool call it made `call:<toolCallId>` (the id it saw with the
 * result), an action `action:<actionId>` that committed, an artifact `sha256:<hex>`, or an
 * item its parent shared with it `parent:<id>`. The child's verifier gate checks them
 * (`claimsEvidenceVerifier`).
 */
export const SubagentClaimsSchema = z.object({
  claims: z.array(
    z.object({
      claim: z.string().min(1),
      confidence: z.enum(["low", "medium", "high"]).optional(),
      evidence: z.array(z.object({ ref: z.string().min(1), quote: z.string().optional() })).min(1),
    }),
  ),
});

/**
 * Subagents (`HarnessOptions.subagents`): the runtime offers the model a `spawn_subagent`
 * tool whose action starts a child run with its own journal stream (run id derived from the
 * action id), a declared subset of the harness's tools, a budget reserved from the parent's
 * before it starts, and a typed result (validated by `result`) that becomes the action's
 * committed output. SUBAGENT_FAILED when the child ends without one.
 *
 * @example
 * ```ts
 * const harness = createHarness({
 *   provider,
 *   tools: [readFile, search],
 *   budget: { limits: { tokens: 500_000, fan_out: 8 } },
 *   subagents: { tools: ["read_file"], budget: { tokens: 50_000, turns: 6 }, maxTurns: 6 },
 * });
 * ```
 */
export interface SubagentOptions {
  /** Names of the harness's tools a child may call (never `spawn_subagent`: children do not spawn). */
  readonly tools: readonly string[];
  /** Each child's budget, reserved from the parent's (attribution `subagent`) before the child starts; its limits. */
  readonly budget: BudgetAmounts;
  /** The child's result schema (its structured output); default: claims with evidence references. */
  readonly result?: SchemaLike;
  /** The child's turn limit; default 8. */
  readonly maxTurns?: number;
  /** The child's system prompt; default the parent's. */
  readonly systemPrompt?: string;
  /**
   * The child's completion gate (the parent's `verifiers` and `checkCompletion` judge only the
   * parent). Default: with the default `result`, every claim's evidence must check out against
   * the child's journal (`claimsEvidenceVerifier`); with your own `result`, none.
   */
  readonly verifiers?: readonly VerifierV1[];
}

export interface ResolvedSubagents {
  readonly tools: readonly string[];
  readonly budget: BudgetAmounts;
  readonly result: SchemaLike;
  readonly maxTurns: number;
  readonly systemPrompt: string | undefined;
  readonly verifiers: readonly VerifierV1[];
  /** Each parent run's compiled context while a batch of its calls runs (what a child spawned in it forks from). */
  readonly forkSources: Map<string, ForkSource>;
  /** What each finished child was charged in all (its journal's `budget.settled`), by the spawn attempt: its parent reservation settles to it. */
  readonly charges: Map<string, BudgetAmounts>;
}

/** Validates `HarnessOptions.subagents` against the harness's tools (CONFIG_INVALID / BUDGET_INVALID). */
export function resolveSubagents(option: SubagentOptions | undefined, toolNames: ReadonlySet<string>): ResolvedSubagents | undefined {
  if (option === undefined) return undefined;
  if (!Array.isArray(option?.tools)) throw invalid("subagents.tools must be a list of tool names");
  for (const name of option.tools) {
    if (name === SPAWN_SUBAGENT) throw invalid("a child cannot spawn: leave spawn_subagent out of subagents.tools");
    if (!toolNames.has(name)) throw invalid(`subagents.tools names ${JSON.stringify(name)}, which the harness does not have`);
  }
  const budget = BudgetAmountsSchema.safeParse(option.budget);
  if (!budget.success) throw new YokeError("BUDGET_INVALID", `subagents.budget: ${budget.error.message}`, { details: { option: "subagents.budget" } });
  const maxTurns = option.maxTurns ?? 8;
  if (!Number.isInteger(maxTurns) || maxTurns < 1) throw invalid("subagents.maxTurns must be a positive integer");
  return {
    tools: [...option.tools],
    budget: budget.data,
    result: option.result ?? SubagentClaimsSchema,
    maxTurns,
    systemPrompt: option.systemPrompt,
    verifiers: option.verifiers ?? (option.result === undefined ? [claimsEvidenceVerifier()] : []),
    forkSources: new Map(),
    charges: new Map(),
  };
}

/** The child run of a spawn action: derived from the action id, so a resume finds the same child. */
export function childRunIdOf(actionId: string): string {
  return `run_sub-${actionId.slice(actionId.indexOf("_") + 1)}`.slice(0, 68);
}

/** The reservation a spawn attempt holds for its child: derived from the attempt id, so the tool can name it to the child. */
export function childReservationIdOf(attemptId: string): string {
  return `reservation_sub-${attemptId.slice(attemptId.indexOf("_") + 1)}`.slice(0, 76);
}

function invalid(message: string): YokeError {
  return new YokeError("CONFIG_INVALID", message, { details: { option: "subagents" } });
}
