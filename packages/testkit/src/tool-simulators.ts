import {
  YokeError,
  type CompensationContext,
  type ReconcileContext,
  type ReconcileResult,
  type SideEffectClass,
  type ToolAccess,
  type ToolCallContext,
  type ToolOutput,
} from "@yoke/protocol";
import { z } from "zod/v4";
import type { EffectLedger } from "./effect-ledger.js";

/**
 * What one attempt of a simulated tool does:
 * - `ok`: applies its effect and answers;
 * - `timeout-before-commit`: hangs without applying until its deadline aborts it;
 * - `timeout-after-commit`: applies, then hangs until its deadline (the answer never comes);
 * - `ack-lost`: applies, then the acknowledgement is lost (TOOL_OUTCOME_UNKNOWN);
 * - `duplicate-receipt`: the client's transport sends the request twice; the service
 *   honours the idempotency key and returns the first receipt;
 * - `stale-revision`: the service refuses a write based on an old revision (not applied);
 * - `partial-stream`: the answer's stream is cut (retryable, not applied);
 * - `fail`: a definite failure (not applied).
 */
export type SimulatedFault =
  | "ok"
  | "timeout-before-commit"
  | "timeout-after-commit"
  | "ack-lost"
  | "duplicate-receipt"
  | "stale-revision"
  | "partial-stream"
  | "fail";

export interface SimulatedToolOptions {
  readonly name: string;
  readonly sideEffect: SideEffectClass;
  readonly ledger: EffectLedger;
  /** Faults by attempt: the first entry applies to attempt 1, and so on; later attempts are `ok`. */
  readonly faults?: readonly SimulatedFault[];
  /** Give the tool a reconciler that asks the ledger whether the action's key was applied. */
  readonly reconcile?: boolean;
  /** Give the tool a compensation (`"fails"`: one that always throws). */
  readonly compensate?: "works" | "fails";
  readonly timeoutMs?: number;
  readonly maxAttempts?: number;
}

/** The input every simulated tool takes: the resource it acts on and the value it writes. */
export const SimulatedInputSchema = z.object({ resource: z.string().min(1), value: z.string().default("") });
export type SimulatedInput = z.output<typeof SimulatedInputSchema>;

/** A tool definition in the shape `defineTool` takes (so testkit needs no runtime). */
export interface SimulatedToolDefinition {
  name: string;
  description: string;
  input: typeof SimulatedInputSchema;
  sideEffect: SideEffectClass;
  timeoutMs?: number;
  maxAttempts?: number;
  access: (input: SimulatedInput) => ToolAccess;
  execute(input: SimulatedInput, context: ToolCallContext): Promise<ToolOutput>;
  reconcile?: (actionId: string, receipt: unknown, context?: ReconcileContext) => Promise<ReconcileResult>;
  compensate?: (input: SimulatedInput, context: CompensationContext) => Promise<void>;
}

const untilAborted = (signal: AbortSignal) =>
  new Promise<never>((_resolve, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });

/**
 * A tool over an effect ledger that misbehaves on cue, for testing what a runtime does with
 * each fault. Its idempotency key is the action id; `idempotent` tools' writes are
 * deduplicated by the ledger, the others' are not (a duplicate shows in `duplicates()`).
 * A `none` tool reads its resource: it never writes to the ledger.
 *
 * @example
 * ```ts
 * const charge = defineTool(simulatedTool({ name: "charge", sideEffect: "irreversible", ledger, faults: ["ack-lost"], reconcile: true }));
 * ```
 */
export function simulatedTool(options: SimulatedToolOptions): SimulatedToolDefinition {
  const { ledger, sideEffect } = options;
  const dedupe = sideEffect === "idempotent";
  const definition: SimulatedToolDefinition = {
    name: options.name,
    description: `Simulated ${sideEffect} tool ${options.name}.`,
    input: SimulatedInputSchema,
    sideEffect,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
    access: ({ resource }) => (sideEffect === "none" ? { reads: [resource], writes: [] } : { reads: [], writes: [resource] }),
    async execute({ resource, value }, context) {
      const fault = options.faults?.[context.attempt - 1] ?? "ok";
      // A `none` tool reads: it answers, and the ledger never sees it.
      const write = (deduplicated: boolean) =>
        sideEffect === "none"
          ? { receipt: `read:${context.idempotencyKey}`, duplicate: false }
          : ledger.apply({ resource, key: context.idempotencyKey, value, dedupe: deduplicated });
      const apply = () => write(dedupe);
      switch (fault) {
        case "timeout-before-commit":
          return untilAborted(context.signal);
        case "timeout-after-commit":
          apply();
          return untilAborted(context.signal);
        case "ack-lost":
          apply();
          throw new YokeError("TOOL_OUTCOME_UNKNOWN", `${options.name}: the connection dropped before the acknowledgement`);
        case "stale-revision":
          throw new YokeError("TOOL_FAILED", `${options.name}: ${resource} changed since it was read (stale revision); nothing was written`);
        case "partial-stream":
          throw new YokeError("PROVIDER_STREAM_CUT", `${options.name}: the response stream was cut`);
        case "fail":
          throw new YokeError("TOOL_FAILED", `${options.name}: refused by the service`);
        case "duplicate-receipt": {
          const first = write(true);
          const second = write(true);
          return {
            content: `${options.name} ${resource}`,
            receipt: second.receipt,
            output: { duplicate: second.duplicate && first.receipt === second.receipt },
          };
        }
        case "ok": {
          const { receipt } = apply();
          return { content: `${options.name} ${resource}`, receipt };
        }
      }
    },
  };
  if (options.reconcile) {
    definition.reconcile = async (actionId) =>
      ledger.applied(actionId)
        ? { status: "applied", receipt: `receipt:${actionId}`, content: `${options.name} (confirmed by reconciliation)` }
        : { status: "not_applied" };
  }
  if (options.compensate !== undefined) {
    const fails = options.compensate === "fails";
    definition.compensate = async (_input, context) => {
      if (fails) throw new YokeError("TOOL_COMPENSATION_FAILED", `${options.name}: the service refused the cancellation`);
      ledger.undo(context.actionId);
    };
  }
  return definition;
}
