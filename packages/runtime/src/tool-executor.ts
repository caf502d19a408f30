import { executeBatch, type AttemptOutcome, type DispatchItem, type Timers } from "@yoke/scheduler";
import type { Capability, Clock } from "@yoke/protocol";
import { mintFor, type CapabilityOptions } from "./capabilities.js";
import { createRedactor } from "./redaction.js";

export { errorEnvelope } from "@yoke/scheduler";

/**
 * The one seam through which the loop runs tools: a batch of leased attempts (their
 * executing already durable) in proposal order in, one outcome per attempt in the
 * same order out. It never rejects. The default is `@yoke/scheduler`'s conflict-aware
 * `executeBatch`.
 */
export interface ExecuteAllOptions {
  /** The fencing token of the run's lease: every handler gets it as `context.fencingToken`. */
  readonly fencingToken?: number;
  /** The run the batch belongs to: every handler gets it as `context.run`. */
  readonly run?: { readonly tenantId: string; readonly sessionId: string; readonly runId: string };
}

export interface ToolExecutor {
  executeAll(items: readonly DispatchItem[], signal: AbortSignal | undefined, options?: ExecuteAllOptions): Promise<AttemptOutcome[]>;
}

export interface ToolExecutorOptions {
  readonly clock: Clock;
  readonly timers?: Timers | undefined;
  readonly maxConcurrent?: number | undefined;
  /** With a broker, each handler gets `context.capability`, minted at its dispatch for the run's tenant. */
  readonly capabilities?: { readonly options: CapabilityOptions; readonly tenantId: string } | undefined;
}

/**
 * The scheduler's executor: conflicting calls in proposal order, the rest at once (at most
 * `maxConcurrent` handlers at a time), deadlines on `timers`. With `capabilities`, every
 * dispatched attempt gets its own capability (tenant, the tool's resource and verb, the
 * action, expiry now + ttl), revoked as soon as the handler settles and, for a handler
 * abandoned at its deadline, when the batch returns; the token is cut out of whatever the
 * handler returned (result and receipt), so it never reaches the journal.
 */
export function createToolExecutor(options: ToolExecutorOptions): ToolExecutor {
  const run = (items: readonly DispatchItem[], signal: AbortSignal | undefined, batch: ExecuteAllOptions | undefined) =>
    executeBatch(items, {
      clock: options.clock,
      signal,
      maxConcurrent: options.maxConcurrent,
      ...(options.timers ? { timers: options.timers } : {}),
      ...(batch?.fencingToken === undefined ? {} : { fencingToken: batch.fencingToken }),
    });
  const capabilities = options.capabilities;
  return {
    async executeAll(items, signal, batch) {
      // A shortcut: with neither, the wrapper below hands each handler its context unchanged.
      if (capabilities === undefined && batch?.run === undefined) return run(items, signal, batch);
      const minted = new Map<string, Capability>();
      const dispatched = items.map((item): DispatchItem => {
        const tool = item.tool;
        const execute: typeof tool.execute = async (input, context) => {
          const scoped = batch?.run === undefined ? context : { ...context, run: batch.run };
          if (capabilities === undefined) return tool.execute(input, scoped);
          const capability = mintFor(capabilities.options, capabilities.tenantId, options.clock, item);
          minted.set(item.attemptId, capability);
          try {
            return await tool.execute(input, { ...scoped, capability });
          } finally {
            capabilities.options.broker.revoke(capability.id);
          }
        };
        return { ...item, tool: Object.create(tool, { execute: { value: execute, enumerable: true } }) as typeof tool };
      });
      const outcomes = await run(dispatched, signal, batch);
      for (const capability of minted.values()) capabilities?.options.broker.revoke(capability.id);
      return outcomes.map((outcome, index) => {
        const capability = minted.get(items[index]!.attemptId);
        return capability === undefined ? outcome : withoutToken(outcome, capability.token);
      });
    },
  };
}

/** `outcome` with `token` (and its encodings) cut out of the result and receipt a handler returned. */
function withoutToken(outcome: AttemptOutcome, token: string): AttemptOutcome {
  if (outcome.kind !== "committed" && outcome.kind !== "failed") return outcome;
  const redactor = createRedactor([token]);
  if (outcome.kind === "failed") return { ...outcome, result: redactor.redactJson(outcome.result) };
  return { ...outcome, result: redactor.redactJson(outcome.result), receipt: redactor.redactJson(outcome.receipt) };
}
