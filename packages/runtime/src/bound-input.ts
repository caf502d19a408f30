import { hash } from "node:crypto";
import { canonicalJson, parseToolArguments, type ModelResponse, type ToolCallPart } from "@yoke/protocol";

/**
 * `response` with the arguments of every tool call larger than `limit` UTF-8 bytes (the run's
 * pinned `maxToolInputBytes`) left out: such a call keeps its id and name, its arguments
 * become `{}`, and `omitted` records their size, SHA-256 and the limit, so the journal never
 * holds them and a resume judges the call as the first process did (TOOL_INPUT_TOO_LARGE).
 * Runs on the provider's answer before anything else copies it (normalization, the fold,
 * the journal), so a 10 MB argument is not multiplied on its way in. The same object when
 * nothing is too large; `undefined` limit (a journal from before it): unchanged.
 */
export function boundToolInputs(response: ModelResponse, limit: number | undefined): ModelResponse {
  // The provider's answer is not validated yet: anything unexpected is left to normalization to refuse.
  if (limit === undefined || !Array.isArray(response?.content)) return response;
  let content: ModelResponse["content"] | undefined;
  for (const [index, part] of response.content.entries()) {
    if (part?.type !== "tool-call" || typeof part.rawArguments !== "string" || part.omitted !== undefined) continue;
    // A string's UTF-8 size is at most 3 bytes per UTF-16 unit: short ones need no count.
    if (part.rawArguments.length * 3 <= limit) continue;
    const bytes = Buffer.byteLength(part.rawArguments, "utf8");
    if (bytes <= limit) continue;
    const bounded: ToolCallPart = {
      type: "tool-call",
      toolCallId: part.toolCallId,
      toolName: part.toolName,
      rawArguments: "{}",
      arguments: {},
      omitted: { bytes, sha256: hash("sha256", part.rawArguments, "hex"), limit },
      ...(part.providerMetadata === undefined ? {} : { providerMetadata: part.providerMetadata }),
    };
    content ??= response.content.slice();
    content[index] = bounded;
  }
  return content === undefined ? response : { ...response, content };
}

/**
 * `response` as `model.responded` journals it: each tool call's `arguments` left out where
 * they are exactly the parse of its `rawArguments`, so the argument text is stored once (the
 * fold gives the parse back, `withParsedArguments`). `undefined` when no call has any to leave
 * out (the event then carries the response as it is, without `argumentsFromRaw`).
 */
export function journaledResponse(response: ModelResponse): ModelResponse | undefined {
  let content: ModelResponse["content"] | undefined;
  for (const [index, part] of response.content.entries()) {
    if (part.type !== "tool-call" || part.arguments === undefined || part.argumentsError !== undefined || part.omitted !== undefined) continue;
    const parsed = parseToolArguments(part.rawArguments);
    // A parse that differs (an adapter that repaired the text, a test double) is kept: it is not derivable.
    if (!parsed.ok || canonicalJson(parsed.value) !== canonicalJson(part.arguments)) continue;
    const { arguments: _parse, ...rest } = part;
    content ??= response.content.slice();
    content[index] = rest;
  }
  return content === undefined ? undefined : { ...response, content };
}
