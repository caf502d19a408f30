import {
  YokeError,
  parseToolArguments,
  withholdRefusedCalls,
  type AssistantPart,
  type GenerateOptions,
  type ModelRequest,
  type ModelResponse,
  type ProviderAdapterV1,
  type ProviderCapabilities,
  type ToolCallPart,
  type TruncatedToolCallPart,
} from "@yoke/protocol";
import { streamScripted } from "./scripted-stream.js";
import type { ScriptedResponse, ScriptedStep, ScriptedToolCallPart, ScriptedTruncatedToolCallPart } from "./scripted-model-steps.js";

export interface ScriptedModelOptions {
  /** Provider id reported by the adapter and, by default, by each response. Default `scripted`. */
  provider?: string;
  /** Model id reported by the adapter and, by default, by each response. Default `scripted-1`. */
  modelId?: string;
  /** Overrides parts of the capability matrix. */
  capabilities?: Partial<ProviderCapabilities>;
  /**
   * Keep a deep copy of every request in `calls`. Default true; turn off for long runs
   * (benchmarks), where the copies would grow with the square of the history.
   */
  recordCalls?: boolean;
}

/**
 * A `ProviderAdapterV1` test double that answers from a queue of steps, one per `generate`.
 *
 * @example
 * ```ts
 * const model = createScriptedModel([callTools([{ name: "echo", args: { text: "hi" } }]), say("done")]);
 * const harness = createHarness({ journal, provider: model, tools, tenantId: "tenant_a" });
 * await harness.start("say hi");
 * model.assertConsumed(); // throws PROVIDER_UNCONSUMED_STEPS if the run stopped early
 * ```
 */
export interface ScriptedModel extends ProviderAdapterV1 {
  /** Requests received, in order, as deep copies (empty when `recordCalls` is false). */
  readonly calls: readonly ModelRequest[];
  /** Steps not yet consumed. */
  readonly remaining: number;
  /** Calls that found the queue empty (each rejected with PROVIDER_UNEXPECTED_CALL). */
  readonly unexpectedCalls: number;
  /** Throws PROVIDER_UNCONSUMED_STEPS naming how many steps remain; returns when none do. */
  assertConsumed(): void;
  /** Same as `assertConsumed`. */
  finish(): void;
}

/** What a scripted model claims it can do: everything a text model with tools can. */
export const SCRIPTED_CAPABILITIES: ProviderCapabilities = Object.freeze<ProviderCapabilities>({
  inputModalities: ["text"],
  outputModalities: ["text"],
  toolCalls: true,
  parallelToolCalls: true,
  structuredOutput: "json-schema",
  streaming: false,
  cancellation: true,
  usage: { cacheReadTokens: true, cacheWriteTokens: true, reasoningTokens: true },
  contextWindow: 200_000,
  maxOutputTokens: 8_192,
  promptCaching: "none",
});

const AUTO_ID = /^call_(\d+)$/;

/**
 * Creates a scripted model. Each `generate` consumes the next step:
 * - a `ScriptedResponse` (see `say`, `callTools`, …) is completed with defaults;
 * - a function is called with the request and the call's index, and its result used;
 * - `{ error }` makes the call reject with that error.
 *
 * Like every adapter, it withholds the tool calls of a refused response (stop reason `refusal`
 * or `content_filter`, or a `refusal` part): they come back as `tool-call-withheld` parts. To
 * test a runtime against an adapter that breaks that rule, wrap `generate` and return the
 * executable parts yourself.
 *
 * Tool calls (complete or truncated) without an id get `call_N`, numbered after the highest `call_N` already in the
 * request's transcript (or this model's own count, whichever is higher), so a fresh model
 * resuming a journaled run continues the numbering of the one that crashed.
 *
 * Given `onStreamPart`, it streams each response as it returns it (`streamScripted`): text a
 * word at a time, tool-call arguments in chunks, then `finish`.
 *
 * A call with the queue empty rejects with PROVIDER_UNEXPECTED_CALL; an aborted signal
 * rejects with CANCELLED and consumes nothing.
 */
export function createScriptedModel(steps: readonly ScriptedStep[], options: ScriptedModelOptions = {}): ScriptedModel {
  const queue = [...steps];
  const calls: ModelRequest[] = [];
  const provider = options.provider ?? "scripted";
  const modelId = options.modelId ?? "scripted-1";
  const recordCalls = options.recordCalls ?? true;
  let callCount = 0;
  let unexpectedCalls = 0;
  let lastAutoId = 0;

  const assertConsumed = () => {
    if (queue.length > 0) {
      throw new YokeError("PROVIDER_UNCONSUMED_STEPS", `the scripted model still has ${queue.length} unconsumed step(s)`, {
        details: { remaining: queue.length, calls: callCount },
      });
    }
  };

  // The transcript is scanned at most once per call, and only when a call needs an id.
  const autoIds = (request: ModelRequest) => {
    let scanned = false;
    return () => {
      if (!scanned) lastAutoId = Math.max(lastAutoId, highestAutoId(request));
      scanned = true;
      lastAutoId += 1;
      return `call_${lastAutoId}`;
    };
  };

  return {
    specificationVersion: "v1",
    provider,
    modelId,
    capabilities: { ...SCRIPTED_CAPABILITIES, ...options.capabilities },
    get calls() {
      return calls;
    },
    get remaining() {
      return queue.length;
    },
    get unexpectedCalls() {
      return unexpectedCalls;
    },
    assertConsumed,
    finish: assertConsumed,

    async generate(request: ModelRequest, generateOptions: GenerateOptions = {}): Promise<ModelResponse> {
      throwIfAborted(generateOptions.signal);
      const callIndex = callCount++;
      if (recordCalls) calls.push(structuredClone(request));
      const step = queue.shift();
      if (step === undefined) {
        unexpectedCalls += 1;
        throw new YokeError("PROVIDER_UNEXPECTED_CALL", `the scripted model was called (call ${callIndex + 1}) with no steps left`, {
          details: { callIndex },
        });
      }
      const resolved = typeof step === "function" ? await step(structuredClone(request), callIndex) : step;
      throwIfAborted(generateOptions.signal);
      if ("error" in resolved) throw resolved.error;
      const response = complete(resolved, { provider, modelId, nextId: autoIds(request) });
      if (generateOptions.onStreamPart !== undefined) streamScripted(response, generateOptions.onStreamPart);
      return response;
    },
  };
}

function complete(step: ScriptedResponse, context: { provider: string; modelId: string; nextId: () => string }): ModelResponse {
  let sharedId: string | undefined;
  const idFor = (part: ScriptedToolCallPart | ScriptedTruncatedToolCallPart) => {
    if (part.toolCallId !== undefined) return part.toolCallId;
    if (!step.sameToolCallId) return context.nextId();
    sharedId ??= context.nextId();
    return sharedId;
  };
  const content: AssistantPart[] = (step.content ?? []).map((part): AssistantPart => {
    if (part.type === "tool-call") return completeToolCall(part, idFor(part));
    if (part.type === "tool-call-truncated") return truncatedCall(part, idFor(part));
    return structuredClone(part);
  });
  const hasToolCalls = content.some((part) => part.type === "tool-call");
  const response: ModelResponse = {
    provider: step.provider ?? context.provider,
    model: step.model ?? context.modelId,
    content,
    stopReason: step.stopReason ?? (hasToolCalls ? "tool_use" : "end_turn"),
    usage: { inputTokens: 0, outputTokens: 0, ...step.usage },
  };
  if (step.id !== undefined) response.id = step.id;
  if (step.rawStopReason !== undefined) response.rawStopReason = step.rawStopReason;
  if (step.providerMetadata !== undefined) response.providerMetadata = structuredClone(step.providerMetadata);
  if (step.warnings !== undefined) response.warnings = [...step.warnings];
  return withholdRefusedCalls(response);
}

function completeToolCall(part: ScriptedToolCallPart, toolCallId: string): ToolCallPart {
  const rawArguments = part.rawArguments ?? JSON.stringify(part.arguments ?? {});
  const call: ToolCallPart = { type: "tool-call", toolCallId, toolName: part.toolName, rawArguments };
  if (part.arguments !== undefined || part.argumentsError !== undefined) {
    if (part.arguments !== undefined) call.arguments = structuredClone(part.arguments);
    if (part.argumentsError !== undefined) call.argumentsError = part.argumentsError;
  } else {
    const parsed = parseToolArguments(rawArguments);
    if (parsed.ok) call.arguments = parsed.value;
    else call.argumentsError = parsed.error;
  }
  if (part.providerMetadata !== undefined) call.providerMetadata = structuredClone(part.providerMetadata);
  return call;
}

function truncatedCall(part: ScriptedTruncatedToolCallPart, toolCallId: string): TruncatedToolCallPart {
  const call: TruncatedToolCallPart = { type: "tool-call-truncated", toolCallId, toolName: part.toolName, rawArguments: part.rawArguments };
  if (part.providerMetadata !== undefined) call.providerMetadata = structuredClone(part.providerMetadata);
  return call;
}

function highestAutoId(request: ModelRequest): number {
  let highest = 0;
  for (const message of request.messages) {
    if (message.role !== "assistant") continue;
    for (const part of message.content) {
      if (part.type !== "tool-call" && part.type !== "tool-call-truncated" && part.type !== "tool-call-withheld") continue;
      const match = AUTO_ID.exec(part.toolCallId);
      if (match) highest = Math.max(highest, Number(match[1]));
    }
  }
  return highest;
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) {
    throw new YokeError("CANCELLED", "the scripted model call was cancelled", { cause: signal.reason });
  }
}
