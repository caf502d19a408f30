import {
  JsonValueSchema,
  YokeError,
  type ActionId,
  type AttemptId,
  type Clock,
  type ToolResultEnvelope,
  type YokeErrorCode,
} from "@yoke/protocol";
import type { AnyTool, ToolOutput } from "./define-tool.js";

/** One attempt of one tool call, its `tool.started` already durable. */
export interface ToolInvocation {
  readonly tool: AnyTool;
  /** The input as the tool's schema parsed it. */
  readonly input: unknown;
  readonly actionId: ActionId;
  readonly attemptId: AttemptId;
  readonly attempt: number;
}

/**
 * The one seam through which the loop runs tools: a batch of started calls in proposal
 * order in, one result envelope per call in the same order out. It never rejects: a failure
 * is an error envelope for the model. (The action-transaction scheduler replaces this.)
 */
export interface ToolExecutor {
  executeAll(invocations: readonly ToolInvocation[], signal: AbortSignal | undefined): Promise<ToolResultEnvelope[]>;
}

/**
 * The simple executor: consecutive calls of side-effect class `none` run in parallel,
 * every other call runs alone, in proposal order, so a write is never reordered around the
 * reads the model placed before or after it.
 */
export function createToolExecutor(options: { clock: Clock }): ToolExecutor {
  return {
    async executeAll(invocations, signal) {
      const results: ToolResultEnvelope[] = [];
      let index = 0;
      while (index < invocations.length) {
        let end = index + 1;
        if (invocations[index]!.tool.sideEffect === "none") {
          while (end < invocations.length && invocations[end]!.tool.sideEffect === "none") end += 1;
        }
        const batch = invocations.slice(index, end);
        results.push(...(await Promise.all(batch.map((invocation) => runOne(invocation, signal, options.clock)))));
        index = end;
      }
      return results;
    },
  };
}

async function runOne(invocation: ToolInvocation, runSignal: AbortSignal | undefined, clock: Clock): Promise<ToolResultEnvelope> {
  const { tool } = invocation;
  const startedAt = clock.now();
  if (runSignal?.aborted) {
    return errorEnvelope("CANCELLED", "the run was cancelled before this call was dispatched; it did not run", startedAt, clock);
  }
  const timeout = new AbortController();
  const signal = runSignal ? AbortSignal.any([timeout.signal, runSignal]) : timeout.signal;
  const timer = setTimeout(() => timeout.abort(), tool.timeoutMs);
  const aborted = new Promise<never>((_, reject) => {
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
  try {
    const context = { actionId: invocation.actionId, attemptId: invocation.attemptId, attempt: invocation.attempt, signal };
    const output = await Promise.race([Promise.resolve().then(() => tool.execute(invocation.input, context)), aborted]);
    const envelope = okEnvelope(output, startedAt, clock);
    return envelope ?? errorEnvelope("TOOL_FAILED", "the tool returned neither a string nor { content, output? } with JSON output", startedAt, clock);
  } catch (error) {
    if (timeout.signal.aborted) {
      return errorEnvelope("TOOL_TIMEOUT", `the tool did not finish within ${tool.timeoutMs} ms and was abandoned`, startedAt, clock);
    }
    if (runSignal?.aborted) {
      return errorEnvelope("CANCELLED", "the run was cancelled while this call ran; its effect may be partial", startedAt, clock);
    }
    return errorEnvelope("TOOL_FAILED", messageOf(error), startedAt, clock);
  } finally {
    clearTimeout(timer);
  }
}

function okEnvelope(output: ToolOutput, startedAt: number, clock: Clock): ToolResultEnvelope | undefined {
  const endedAt = clock.now();
  const timing = { startedAt, endedAt, durationMs: Math.max(0, endedAt - startedAt) };
  if (typeof output === "string") return { status: "ok", content: [{ type: "text", text: output }], timing };
  if (typeof output !== "object" || output === null || typeof output.content !== "string") return undefined;
  const envelope: ToolResultEnvelope = { status: "ok", content: [{ type: "text", text: output.content }], timing };
  if (output.output !== undefined) {
    const parsed = JsonValueSchema.safeParse(output.output);
    if (!parsed.success) return undefined;
    envelope.output = parsed.data;
  }
  return envelope;
}

/** An error result for the model: the code and a message, never a stack. */
export function errorEnvelope(code: YokeErrorCode, message: string, startedAt: number, clock: Clock): ToolResultEnvelope {
  const endedAt = clock.now();
  return {
    status: "error",
    content: [{ type: "text", text: `${code}: ${message}` }],
    error: { code, message },
    timing: { startedAt, endedAt, durationMs: Math.max(0, endedAt - startedAt) },
  };
}

function messageOf(error: unknown): string {
  if (YokeError.isInstance(error) || error instanceof Error) return error.message || error.name;
  return typeof error === "string" ? error : "the tool failed without a message";
}
