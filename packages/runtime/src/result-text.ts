import type { RunState } from "@yoke/protocol";

/**
 * The final answer's text: the text parts of the run's last assistant message, joined as the
 * model sent them. Refusal parts are never included; "" when the model has not answered.
 */
export function finalText(state: RunState): string {
  const last = state.messages.findLast((message) => message.role === "assistant");
  if (last?.role !== "assistant") return "";
  return last.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
}
