// The spans of model calls (`chat <model>`): one per attempt, named after the requested model once
// the compiled context says which, closed by the response or the failure.
import { type Attributes, type Span, SpanKind } from "@opentelemetry/api";
import type { YokeEventOf } from "@yoke/protocol";
import { GEN_AI, GEN_AI_OPERATION, YOKE } from "./attributes.js";
import { fail, hrTimeOf, type SpanHost } from "./span-host.js";

interface ModelCall {
  span: Span;
  attempt: number;
  readonly turnId: string;
  readonly requestHash: string;
}

export class ModelCallSpans {
  private readonly calls = new Map<string, ModelCall>();
  private requestModel: string | undefined;
  private maxTokens: number | undefined;
  private provider: string | undefined;

  constructor(private readonly host: SpanHost) {}

  contextCompiled(event: YokeEventOf<"context.compiled">): void {
    // The compiler's manifest delta sets only what changed: keep the last model and output reserve.
    const set = (event.data.manifestDelta as { set?: { model?: unknown; allocation?: { outputReserve?: unknown } } }).set;
    if (typeof set?.model === "string") this.requestModel = set.model;
    if (typeof set?.allocation?.outputReserve === "number") this.maxTokens = set.allocation.outputReserve;
    const call = this.calls.get(event.data.turnId);
    if (call && call.requestHash === event.data.requestHash) this.describeRequest(call.span);
  }

  modelRequested(event: YokeEventOf<"model.requested">): void {
    this.calls
      .get(event.data.turnId)
      ?.span.setAttributes({ [YOKE.incomplete]: true })
      .end(hrTimeOf(event.at));
    this.openCall(event.data.turnId, event.data.requestHash, 1, event.at);
  }

  modelFailed(event: YokeEventOf<"model.failed">): void {
    const { turnId, attempt, code, message, retryable, retrying, requestId } = event.data;
    const call = this.calls.get(turnId) ?? this.openCall(turnId, "", attempt, event.at);
    call.span.setAttributes({ [YOKE.modelAttempt]: attempt, [YOKE.retryable]: retryable, [YOKE.retrying]: retrying });
    if (requestId !== undefined) call.span.setAttribute(YOKE.providerRequestId, requestId);
    fail(call.span, code, message);
    call.span.end(hrTimeOf(event.at));
    this.calls.delete(turnId);
    if (retrying) this.openCall(turnId, call.requestHash, attempt + 1, event.at);
  }

  modelResponded(event: YokeEventOf<"model.responded">): void {
    const { turnId, response, latencyMs } = event.data;
    const call = this.calls.get(turnId) ?? this.openCall(turnId, "", 1, Math.max(0, event.at - latencyMs));
    this.provider = response.provider;
    const usage = response.usage;
    const attributes: Attributes = {
      [GEN_AI.providerName]: response.provider,
      [GEN_AI.responseModel]: response.model,
      [GEN_AI.responseFinishReasons]: [response.rawStopReason ?? response.stopReason],
      [GEN_AI.usageInputTokens]: usage.inputTokens,
      [GEN_AI.usageOutputTokens]: usage.outputTokens,
      [YOKE.stopReason]: response.stopReason,
    };
    if (response.id !== undefined) attributes[GEN_AI.responseId] = response.id;
    if (response.requestId !== undefined) attributes[YOKE.providerRequestId] = response.requestId;
    if (usage.cacheReadTokens !== undefined) attributes[GEN_AI.usageCacheReadInputTokens] = usage.cacheReadTokens;
    if (usage.cacheWriteTokens !== undefined) attributes[GEN_AI.usageCacheCreationInputTokens] = usage.cacheWriteTokens;
    if (usage.reasoningTokens !== undefined) attributes[GEN_AI.usageReasoningOutputTokens] = usage.reasoningTokens;
    call.span.setAttributes(attributes);
    if (this.requestModel === undefined) call.span.updateName(`${GEN_AI_OPERATION.chat} ${response.model}`);
    call.span.end(hrTimeOf(event.at));
    this.calls.delete(turnId);
  }

  /** Ends every open call at `at`, with `attributes` (the incomplete mark, when the run did not end). */
  endAll(at: number, attributes?: Attributes): void {
    for (const call of this.calls.values()) (attributes ? call.span.setAttributes(attributes) : call.span).end(hrTimeOf(at));
    this.calls.clear();
  }

  clear(): void {
    this.calls.clear();
  }

  private describeRequest(span: Span): void {
    if (this.requestModel !== undefined) {
      span.setAttribute(GEN_AI.requestModel, this.requestModel);
      span.updateName(`${GEN_AI_OPERATION.chat} ${this.requestModel}`);
    }
    if (this.maxTokens !== undefined) span.setAttribute(GEN_AI.requestMaxTokens, this.maxTokens);
  }

  private openCall(turnId: string, requestHash: string, attempt: number, at: number): ModelCall {
    const attributes: Attributes = {
      [GEN_AI.operationName]: GEN_AI_OPERATION.chat,
      [YOKE.turnId]: turnId,
      [YOKE.requestHash]: requestHash,
      [YOKE.modelAttempt]: attempt,
    };
    if (this.provider !== undefined) attributes[GEN_AI.providerName] = this.provider;
    const span = this.host.start(GEN_AI_OPERATION.chat, at, attributes, this.host.turnContext(turnId), SpanKind.CLIENT);
    this.describeRequest(span);
    const call = { span, attempt, turnId, requestHash };
    this.calls.set(turnId, call);
    return call;
  }
}
