import type { ToolResultEnvelope } from "@yoke/protocol";

/** A tool result as the text the model reads: the content, or the error's code and message. */
export function toolResultText(result: ToolResultEnvelope): string {
  const text = result.content.map((part) => part.text).join("\n");
  if (result.status === "ok") return text;
  const error = result.error === undefined ? "error" : `${result.error.code}: ${result.error.message}`;
  return text === "" ? error : `${error}\n${text}`;
}
