import {
  JsonValueSchema,
  YokeError,
  validateWithSchema,
  type Clock,
  type JsonValue,
  type AnyToolDeclaration,
  type ToolOutput,
  type ToolResultEnvelope,
  type YokeErrorCode,
} from "@yoke/protocol";

/**
 * An error result for the model: the code and a message, never a stack. `startedAt` and the
 * clock's now are its timing. What a loop journals for a call it refused or could not run.
 *
 * @example
 * ```ts
 * const result = errorEnvelope("TOOL_NOT_FOUND", "no tool named lookup", clock.now(), clock);
 * // { status: "error", content: [{ type: "text", text: "TOOL_NOT_FOUND: no tool named lookup" }], error: { ... }, timing: { ... } }
 * ```
 */
export function errorEnvelope(code: YokeErrorCode, message: string, startedAt: number, clock: Clock): ToolResultEnvelope {
  const endedAt = clock.now();
  return {
    status: "error",
    content: [{ type: "text", text: `${code}: ${message}` }],
    error: { code, message },
    timing: { startedAt, endedAt, durationMs: Math.max(0, endedAt - startedAt) },
  };
}

/**
 * What a handler's answer becomes: an ok envelope cut to the output budget, and its receipt.
 * Structured output is checked by the tool's output schema's own validator (maybe asynchronous).
 * An answer that is not a tool output, or output that fails the schema, becomes an error
 * envelope (TOOL_FAILED, TOOL_OUTPUT_INVALID) instead; it never rejects for those.
 *
 * @example
 * ```ts
 * const startedAt = clock.now();
 * const { result, receipt } = await outputEnvelope(tool, await tool.execute(input, context), startedAt, clock);
 * ```
 */
export async function outputEnvelope(
  tool: AnyToolDeclaration,
  output: ToolOutput,
  startedAt: number,
  clock: Clock,
): Promise<{ result: ToolResultEnvelope; receipt: JsonValue | undefined }> {
  const endedAt = clock.now();
  const timing = { startedAt, endedAt, durationMs: Math.max(0, endedAt - startedAt) };
  const fail = (code: YokeErrorCode, message: string) => ({ result: errorEnvelope(code, message, startedAt, clock), receipt: undefined });
  const shaped = typeof output === "string" ? { content: output } : output;
  if (typeof shaped !== "object" || shaped === null || typeof shaped.content !== "string") {
    return fail("TOOL_FAILED", "the tool returned neither a string nor { content, output? } with JSON output");
  }
  let receipt: JsonValue | undefined;
  if (shaped.receipt !== undefined) {
    const parsed = JsonValueSchema.safeParse(shaped.receipt);
    if (!parsed.success) return fail("TOOL_FAILED", "the tool's receipt is not JSON");
    receipt = parsed.data;
  }
  let content = shaped.content;
  const envelope: ToolResultEnvelope = { status: "ok", content: [], timing };
  if (tool.outputBudget !== undefined && content.length > tool.outputBudget) {
    const originalBytes = Buffer.byteLength(content);
    // Cut at a code point boundary: never half of a surrogate pair.
    const high = content.charCodeAt(tool.outputBudget - 1);
    content = content.slice(0, high >= 0xd800 && high <= 0xdbff ? tool.outputBudget - 1 : tool.outputBudget);
    envelope.truncation = { originalBytes, keptBytes: Buffer.byteLength(content) };
  }
  envelope.content = [{ type: "text", text: content }];
  if (shaped.output !== undefined) {
    const parsed = JsonValueSchema.safeParse(shaped.output);
    if (!parsed.success) return { result: errorEnvelope("TOOL_FAILED", "the tool's output is not JSON", startedAt, clock), receipt };
    if (
      tool.output !== undefined &&
      !(await validateWithSchema(tool.output, parsed.data).then(
        (result) => result.ok,
        () => false,
      ))
    ) {
      return { result: errorEnvelope("TOOL_OUTPUT_INVALID", "the tool's output does not match its output schema", startedAt, clock), receipt };
    }
    envelope.output = parsed.data;
  }
  return { result: envelope, receipt };
}

export function messageOf(error: unknown): string {
  if (YokeError.isInstance(error) || error instanceof Error) return error.message || error.name;
  return typeof error === "string" ? error : "the tool failed without a message";
}
