import type { GenerateOptions, ModelResponse } from "@yoke/protocol";

/** Characters of a tool call's argument text per streamed delta. */
const ARGUMENT_CHUNK = 16;

/**
 * Streams a scripted response as a streaming adapter would: text and reasoning a word at a
 * time, each tool call's argument text in chunks between its start and its end, then
 * `finish`. The deltas add up to the response's parts, so a stream consumer sees what a
 * real adapter's would.
 */
export function streamScripted(response: ModelResponse, onStreamPart: NonNullable<GenerateOptions["onStreamPart"]>): void {
  for (const part of response.content) {
    switch (part.type) {
      case "text":
        for (const word of words(part.text)) onStreamPart({ type: "text-delta", text: word });
        break;
      case "reasoning":
        for (const word of words(part.text)) onStreamPart({ type: "reasoning-delta", text: word });
        break;
      case "refusal":
        onStreamPart({ type: "refusal-delta", text: part.text });
        break;
      case "tool-call":
      case "tool-call-truncated":
      case "tool-call-withheld": {
        const { toolCallId, toolName, rawArguments } = part;
        onStreamPart({ type: "tool-call-start", toolCallId, toolName });
        for (let at = 0; at < rawArguments.length; at += ARGUMENT_CHUNK) {
          onStreamPart({ type: "tool-call-delta", toolCallId, argumentsDelta: rawArguments.slice(at, at + ARGUMENT_CHUNK) });
        }
        onStreamPart(part.type === "tool-call" ? { type: "tool-call-end", toolCallId } : { type: part.type, toolCallId });
        break;
      }
      default:
        break;
    }
  }
  onStreamPart({ type: "finish", response });
}

function words(text: string): string[] {
  return text.match(/\s*\S+\s*|\s+/g) ?? [];
}
