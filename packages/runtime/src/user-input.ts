import { YokeError } from "@yoke/protocol";
import type { UserPartInput } from "./user-media.js";

/**
 * One message of a run's input: a person's words as text, or a list of parts: text, images
 * and files (`{ type: "image" | "file", mediaType, source }`, the source raw bytes, base64, a
 * URL, or an artifact already stored for the tenant).
 */
export interface UserMessage {
  readonly role: "user";
  readonly content: string | readonly UserPartInput[];
}

/**
 * What `harness.start` takes: a task string, or a list of user messages (the first is the
 * run's task; each later one is journaled as `input.added`, source `user`, in the run's first
 * transaction).
 *
 * @example
 * ```ts
 * await harness.start("Summarize notes.txt");
 * await harness.start([
 *   { role: "user", content: "Here is the report." },
 *   { role: "user", content: [{ type: "text", text: "Summarize it in one line." }] },
 * ]);
 * await harness.start([
 *   { role: "user", content: [{ type: "text", text: "What is in this photo?" }, { type: "image", mediaType: "image/png", source: { type: "bytes", data: png } }] },
 * ]);
 * ```
 */
export type UserInput = string | readonly UserMessage[];

/** An input checked and normalized: the run's task, and every message's parts (the first one's included). */
export interface NormalizedInput {
  /** The first message's text (its text parts joined by a blank line): `run.started.task`. */
  readonly task: string;
  /** Every message's parts, in order. */
  readonly messages: readonly (readonly UserPartInput[])[];
}

/**
 * Checks and normalizes `harness.start`'s input. CONFIG_INVALID names what is wrong (the
 * message index and field) for anything but a string or a non-empty list of user messages
 * whose content is a string or a non-empty list of parts: `{ type: "text", text: string }`,
 * or an image or file with a `mediaType` and a `source` (its bytes are checked when stored).
 */
export function userInputOf(input: unknown, operation: string): NormalizedInput {
  if (typeof input === "string") return { task: input, messages: [[{ type: "text", text: input }]] };
  if (!Array.isArray(input)) {
    throw invalid(`${operation}: input must be a string or a list of user messages, not ${describe(input)}`, "input");
  }
  if (input.length === 0) throw invalid(`${operation}: input is an empty list; give at least one user message`, "input");
  const messages = input.map((message: unknown, index) => partsOf(message, `input[${index}]`, operation));
  const task = messages[0]!.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n\n");
  return { task, messages };
}

/** Whether any message of `input` holds an image or a file. */
export function hasMedia(input: NormalizedInput): boolean {
  return input.messages.some((parts) => parts.some((part) => part.type !== "text"));
}

const SOURCE_TYPES = ["bytes", "base64", "url", "artifact"];

function partsOf(message: unknown, path: string, operation: string): UserPartInput[] {
  if (typeof message !== "object" || message === null || Array.isArray(message)) {
    throw invalid(`${operation}: ${path} must be a message { role: "user", content }, not ${describe(message)}`, path);
  }
  const { role, content } = message as { role?: unknown; content?: unknown };
  if (role !== "user") throw invalid(`${operation}: ${path}.role must be "user", not ${describe(role)}`, `${path}.role`);
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (!Array.isArray(content)) {
    throw invalid(`${operation}: ${path}.content must be a string or a list of parts, not ${describe(content)}`, `${path}.content`);
  }
  if (content.length === 0) throw invalid(`${operation}: ${path}.content is an empty list of parts`, `${path}.content`);
  return content.map((part: unknown, index): UserPartInput => {
    const at = `${path}.content[${index}]`;
    const { type, text, mediaType, source } = (typeof part === "object" && part !== null ? part : {}) as {
      type?: unknown;
      text?: unknown;
      mediaType?: unknown;
      source?: unknown;
    };
    if (type === "image" || type === "file") {
      if (typeof mediaType !== "string" || !/^[\w.+-]+\/[\w.+-]+$/.test(mediaType)) {
        throw invalid(`${operation}: ${at}.mediaType must be a media type such as "image/png", not ${describe(mediaType)}`, `${at}.mediaType`);
      }
      const sourceType = (typeof source === "object" && source !== null ? source : {}) as { type?: unknown };
      if (!SOURCE_TYPES.includes(sourceType.type as string)) {
        throw invalid(`${operation}: ${at}.source must be { type: "bytes" | "base64" | "url" | "artifact", … }, not ${describe(source)}`, `${at}.source`);
      }
      return part as UserPartInput;
    }
    if (type !== "text") throw invalid(`${operation}: ${at}.type must be "text", "image" or "file", not ${describe(type)}`, `${at}.type`);
    if (typeof text !== "string") throw invalid(`${operation}: ${at}.text must be a string, not ${describe(text)}`, `${at}.text`);
    return { type: "text", text };
  });
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return typeof value === "object" ? "an object" : typeof value;
}

function invalid(message: string, option: string): YokeError {
  return new YokeError("CONFIG_INVALID", message, { details: { option } });
}
