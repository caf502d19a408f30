import { createHash, type Hash } from "node:crypto";
import { canonicalJson, type Message, type ModelRequest, type RunState } from "@yoke/protocol";

/** The part of run state a request is built from. */
export type RequestSource = Pick<RunState, "systemPrompt" | "messages" | "tools">;

/**
 * Builds the model request for the current state: the system prompt (if any), the
 * transcript, and the tools pinned at run start. Deterministic — the same state gives the
 * same request — so a resume rebuilds exactly the request whose hash is journaled. (The
 * context compiler replaces this seam.)
 *
 * The request shares message objects with the state; adapters must not mutate it.
 *
 * @example
 * ```ts
 * const request = buildRequest(accumulator.peek());
 * const requestHash = createRequestHasher().hash(request);
 * ```
 */
export function buildRequest(state: RequestSource): ModelRequest {
  const messages: Message[] = [];
  if (state.systemPrompt !== undefined && state.systemPrompt !== "") messages.push({ role: "system", content: state.systemPrompt });
  for (const message of state.messages) messages.push(message);
  return { messages, tools: state.tools.slice() };
}

/**
 * Hashes requests: the SHA-256 of `canonicalJson(request)`, hex. Each message's and tool's
 * canonical form is cached by object identity, and the digest state after the transcript is
 * kept, so when turn N+1's transcript extends turn N's, only the new messages are hashed: the
 * per-turn cost does not grow with the history (messages are never mutated once built).
 */
export interface RequestHasher {
  hash(request: ModelRequest): string;
}

interface Checkpoint {
  /** Canonical text up to and including `"messages":[`. */
  readonly prefix: string;
  /** Canonical text of each message hashed into `state`. */
  readonly items: readonly string[];
  readonly state: Hash;
}

export function createRequestHasher(): RequestHasher {
  const cache = new WeakMap<object, string>();
  let checkpoint: Checkpoint | undefined;
  const encode = (item: unknown): string => {
    if (typeof item !== "object" || item === null) return item === undefined ? "null" : canonicalJson(item);
    let text = cache.get(item);
    if (text === undefined) {
      text = canonicalJson(item);
      cache.set(item, text);
    }
    return text;
  };
  const encodeMember = (key: string, value: unknown): string =>
    `${JSON.stringify(key)}:${key === "tools" && Array.isArray(value) ? `[${value.map(encode).join(",")}]` : canonicalJson(value)}`;

  return {
    hash(request) {
      const record = request as Record<string, unknown>;
      const keys = Object.keys(record)
        .filter((key) => record[key] !== undefined)
        .sort();
      const split = keys.indexOf("messages");
      const messages = record.messages;
      if (split < 0 || !Array.isArray(messages)) {
        return createHash("sha256")
          .update(`{${keys.map((key) => encodeMember(key, record[key])).join(",")}}`)
          .digest("hex");
      }
      const before = keys.slice(0, split).map((key) => `${encodeMember(key, record[key])},`);
      const prefix = `{${before.join("")}"messages":[`;
      const items = messages.map(encode);
      let digest: Hash;
      let from: number;
      const previous = checkpoint;
      if (previous && previous.prefix === prefix && previous.items.length <= items.length && previous.items.every((text, index) => text === items[index])) {
        digest = previous.state.copy();
        from = previous.items.length;
      } else {
        digest = createHash("sha256").update(prefix);
        from = 0;
      }
      for (let index = from; index < items.length; index++) digest.update(index === 0 ? items[index]! : `,${items[index]!}`);
      checkpoint = { prefix, items, state: digest.copy() };
      const after = keys.slice(split + 1).map((key) => `,${encodeMember(key, record[key])}`);
      return digest.update(`]${after.join("")}}`).digest("hex");
    },
  };
}
