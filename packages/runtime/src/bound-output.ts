// One copy of every tool output, of bounded size per event: a result past the run's
// `maxEventOutputBytes` goes to the artifact store (the event keeps its head and the ref) or,
// without one, is answered with TOOL_OUTPUT_TOO_LARGE.
import { toolResultText, truncateUtf8 } from "@yoke/context-compiler";
import { YokeError, canonicalJson, type ArtifactRef, type ToolResultEnvelope, type YokeEventDraft } from "@yoke/protocol";
import type { RunContext } from "./run-context.js";

/** Bytes of an error message kept inline when its result goes out of line. */
const ERROR_MESSAGE_BYTES = 1_024;

export const TEXT_MEDIA_TYPE = "text/plain; charset=utf-8";
export const RESULT_MEDIA_TYPE = "application/vnd.yoke.tool-result+json";

/** UTF-8 bytes of what a result holds inline: its text parts, structured output and error message. */
export function inlineBytes(result: ToolResultEnvelope, limit: number): number {
  const parts = [...result.content.map((part) => part.text), ...(result.error === undefined ? [] : [result.error.message])];
  const output = result.output === undefined ? "" : canonicalJson(result.output);
  const units = parts.reduce((sum, text) => sum + text.length, output.length);
  if (units * 3 <= limit) return units; // at most 3 bytes per UTF-16 unit: certainly fits (a lower bound is enough)
  return parts.reduce((sum, text) => sum + Buffer.byteLength(text, "utf8"), Buffer.byteLength(output, "utf8"));
}

/**
 * `drafts` with every tool result that exceeds the run's `maxEventOutputBytes` bounded: with
 * an artifact store, the whole result is put there (durably, before this returns) and the
 * result keeps the first `maxEventOutputBytes` of its text and the ref; otherwise it becomes a
 * TOOL_OUTPUT_TOO_LARGE error. Drafts without such a result are returned as they are (the
 * same objects). A run from before the limit (none pinned) is not bounded.
 */
export async function boundResults(context: RunContext, drafts: readonly YokeEventDraft[]): Promise<YokeEventDraft[]> {
  const limit = context.accumulator.peek().maxEventOutputBytes;
  const bounded: YokeEventDraft[] = [];
  for (const draft of drafts) {
    const result = resultOf(draft);
    if (limit === undefined || result === undefined || inlineBytes(result, limit) <= limit) {
      bounded.push(draft);
      continue;
    }
    const replaced = await boundResult(context, result, limit);
    context.logger.warn(
      {
        type: draft.type,
        limit,
        originalBytes: replaced.truncation?.originalBytes,
        artifact: replaced.truncation?.artifact?.digest,
        code: replaced.error?.code,
      },
      "tool output larger than one event may hold",
    );
    bounded.push({ ...draft, data: { ...draft.data, result: replaced } } as YokeEventDraft);
  }
  return bounded;
}

function resultOf(draft: YokeEventDraft): ToolResultEnvelope | undefined {
  return "result" in draft.data ? draft.data.result : undefined;
}

async function boundResult(context: RunContext, result: ToolResultEnvelope, limit: number): Promise<ToolResultEnvelope> {
  const text = toolResultText(result);
  const originalBytes = Buffer.byteLength(text, "utf8");
  const store = context.deps.artifacts;
  // The run's tenant owns what it stores: another tenant's reads do not find it.
  const tenant = { tenantId: context.scope.tenantId };
  if (store === undefined) return tooLarge(result, originalBytes, limit, "no artifact store is configured");
  let ref: ArtifactRef;
  try {
    ref =
      result.output === undefined
        ? await store.put(tenant, text, { mediaType: TEXT_MEDIA_TYPE })
        : await store.put(tenant, canonicalJson({ content: result.content, output: result.output }), { mediaType: RESULT_MEDIA_TYPE });
  } catch (error) {
    if (!YokeError.hasCode(error, "TOOL_OUTPUT_TOO_LARGE")) throw error;
    return tooLarge(result, originalBytes, limit, `the artifact store refused it too (${error.message})`);
  }
  const kept = truncateUtf8(text, limit);
  const envelope: ToolResultEnvelope = {
    status: result.status,
    content: [{ type: "text", text: kept }],
    truncation: { originalBytes, keptBytes: Buffer.byteLength(kept, "utf8"), artifact: ref },
    timing: result.timing,
  };
  if (result.error !== undefined) envelope.error = { code: result.error.code, message: truncateUtf8(result.error.message, ERROR_MESSAGE_BYTES) };
  return envelope;
}

/** What the model is shown instead of an output nothing may hold. */
function tooLarge(result: ToolResultEnvelope, originalBytes: number, limit: number, why: string): ToolResultEnvelope {
  const message = `the tool's output (${originalBytes} bytes of text${result.output === undefined ? "" : " and structured output"}) is larger than the ${limit} bytes one journal event may hold, and ${why}; it was not kept. Ask for less: a range, a filter or a summary.`;
  return {
    status: "error",
    content: [{ type: "text", text: `TOOL_OUTPUT_TOO_LARGE: ${message}` }],
    error: { code: "TOOL_OUTPUT_TOO_LARGE", message },
    truncation: { originalBytes, keptBytes: 0 },
    timing: result.timing,
  };
}
