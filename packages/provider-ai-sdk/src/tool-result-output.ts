import type { LanguageModelV4ToolResultOutput } from "@ai-sdk/provider";
import type { ToolResultEnvelope } from "@yoke/protocol";

/**
 * A tool result as the specification's output: the text the model reads, or for an error
 * the code and message first. Structured output without text goes as JSON.
 */
export function toolResultOutput(result: ToolResultEnvelope): LanguageModelV4ToolResultOutput {
  const text = result.content.map((part) => part.text).join("\n");
  if (result.status === "ok") {
    if (text === "" && result.output !== undefined) return { type: "json", value: result.output };
    return { type: "text", value: text };
  }
  const error = result.error === undefined ? "error" : `${result.error.code}: ${result.error.message}`;
  return { type: "error-text", value: text === "" ? error : `${error}\n${text}` };
}
