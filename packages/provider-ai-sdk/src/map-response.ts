import type { LanguageModelV4Usage } from "@ai-sdk/provider";
import {
  YokeError,
  parseToolArguments,
  withholdRefusedCalls,
  type AssistantPart,
  type JsonValue,
  type ModelResponse,
  type ProviderMetadata,
  type StopReason,
  type Usage,
} from "@yoke/protocol";
import { withUsageTotals } from "@yoke/protocol/provider-utils";
import { AI_SDK_OPTIONS_KEY } from "./provider-options.js";
import { jsonMetadata, type FoldedResult } from "./stream-folder.js";

type JsonObject = { [key: string]: JsonValue };

const count = (value: number | undefined): number | undefined =>
  typeof value === "number" && Number.isFinite(value) && value >= 0 ? Math.round(value) : undefined;

/**
 * The specification's usage as Yoke's: totals, cached input read and written, reasoning, and
 * the derived figures of `withUsageTotals`. The uncached input is the provider's own figure
 * (`inputTokens.noCache`) when it gave one.
 */
export function mapUsage(usage: LanguageModelV4Usage | undefined): Usage {
  const mapped: Usage = { inputTokens: count(usage?.inputTokens.total) ?? 0, outputTokens: count(usage?.outputTokens.total) ?? 0 };
  const cacheRead = count(usage?.inputTokens.cacheRead);
  const cacheWrite = count(usage?.inputTokens.cacheWrite);
  const reasoning = count(usage?.outputTokens.reasoning);
  if (cacheRead !== undefined) mapped.cacheReadTokens = cacheRead;
  if (cacheWrite !== undefined) mapped.cacheWriteTokens = cacheWrite;
  if (reasoning !== undefined) mapped.reasoningTokens = reasoning;
  const totals = withUsageTotals(mapped);
  const noCache = count(usage?.inputTokens.noCache);
  return noCache === undefined ? totals : { ...totals, uncachedInputTokens: noCache };
}

/**
 * The unified finish reason as a Yoke stop reason. `stop` or `other` with client tool calls
 * in the answer is `tool_use` (some providers report `stop` after calling tools); `other`
 * without calls is `end_turn` with a warning. `error` and `interrupted` are not answers:
 * the caller has turned them into errors already.
 */
function stopReasonOf(unified: string, hasToolCalls: boolean, warnings: string[], raw: string | undefined): StopReason {
  switch (unified) {
    case "length":
      return "max_tokens";
    case "content-filter":
      return "content_filter";
    case "tool-calls":
      return "tool_use";
    case "stop":
      return hasToolCalls ? "tool_use" : "end_turn";
    default:
      if (hasToolCalls) return "tool_use";
      warnings.push(`the model stopped for a reason the specification calls "${unified}"${raw === undefined ? "" : ` (${raw})`}; it is treated as end_turn`);
      return "end_turn";
  }
}

/**
 * A folded result as a normalized response: blocks in order (text, reasoning with its
 * provider metadata, tool calls with raw and parsed arguments or `argumentsError`, calls the
 * output limit cut as `tool-call-truncated`, every call of a `content-filter` finish as
 * `tool-call-withheld`, server tool calls and results), the stop
 * reason with the provider's own kept as `rawStopReason` (the unified one when the provider
 * gave none), usage, the model's provider metadata plus the bridge's own under `ai-sdk`
 * (the unified finish reason, the request id), and every warning.
 */
export function mapFolded(
  folded: FoldedResult,
  target: { provider: string; modelId: string; requestId?: string | undefined },
  admissionWarnings: readonly string[],
): ModelResponse {
  const content: AssistantPart[] = [];
  for (const block of folded.blocks) {
    if (block.kind === "text") {
      if (block.text !== "") content.push({ type: "text", text: block.text });
    } else if (block.kind === "reasoning") {
      content.push({ type: "reasoning", text: block.text, ...(block.providerMetadata === undefined ? {} : { providerMetadata: block.providerMetadata }) });
    } else if (block.kind === "server") {
      content.push(block.part);
    } else if (block.kind === "truncated") {
      const { toolCallId, toolName, input, providerMetadata } = block;
      content.push({ type: "tool-call-truncated", toolCallId, toolName, rawArguments: input, ...(providerMetadata === undefined ? {} : { providerMetadata }) });
    } else {
      const parsed = parseToolArguments(block.input);
      content.push({
        type: "tool-call",
        toolCallId: block.toolCallId,
        toolName: block.toolName,
        rawArguments: block.input,
        ...(parsed.ok ? { arguments: parsed.value } : { argumentsError: parsed.error }),
        ...(block.providerMetadata === undefined ? {} : { providerMetadata: block.providerMetadata }),
      });
    }
  }
  const finish = folded.finishReason;
  if (finish === undefined) {
    throw new YokeError("INTERNAL", "mapFolded was called without a finish reason", { details: { provider: target.provider } });
  }
  const warnings = [...admissionWarnings, ...folded.warnings];
  const stopReason = stopReasonOf(
    finish.unified,
    content.some((part) => part.type === "tool-call"),
    warnings,
    finish.raw,
  );
  const own: JsonObject = { finishReason: finish.unified };
  if (target.requestId !== undefined) own.requestId = target.requestId;
  if (folded.usage?.raw !== undefined) own.rawUsage = JSON.parse(JSON.stringify(folded.usage.raw)) as JsonObject;
  const providerMetadata: ProviderMetadata = { ...jsonMetadata(folded.providerMetadata), [AI_SDK_OPTIONS_KEY]: own };
  const response: ModelResponse = {
    provider: target.provider,
    model: folded.modelId ?? target.modelId,
    content,
    stopReason,
    rawStopReason: finish.raw ?? finish.unified,
    usage: mapUsage(folded.usage),
    providerMetadata,
  };
  if (folded.id !== undefined) response.id = folded.id;
  // The provider's request id, journaled in model.responded like the other adapters'.
  if (target.requestId !== undefined) response.requestId = target.requestId;
  if (warnings.length > 0) response.warnings = warnings;
  // A filtered (or refused) response runs nothing: its calls, finished or not, are withheld.
  return withholdRefusedCalls(response);
}
