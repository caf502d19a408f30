import type { ModelRequest } from "@yoke/protocol";

/**
 * The ids of the calls the output limit cut in a request's history. Neither they nor any
 * result for them go back to OpenAI: the model never finished them, and the runtime asks for
 * them again.
 */
export function truncatedCallIds(request: ModelRequest): Set<string> {
  const ids = new Set<string>();
  for (const message of request.messages) {
    if (message.role !== "assistant") continue;
    for (const part of message.content) if (part.type === "tool-call-truncated") ids.add(part.toolCallId);
  }
  return ids;
}
