import { createHash } from "node:crypto";
import { canonicalJson, type Message, type ModelRequest } from "@yoke/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildRequest, createRequestHasher } from "./request-builder.js";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

const messageArbitrary: fc.Arbitrary<Message> = fc.oneof(
  fc.string().map((text): Message => ({ role: "user", content: [{ type: "text", text }] })),
  fc.record({ id: fc.string({ minLength: 1 }), args: fc.jsonValue() }).map(
    ({ id, args }): Message => ({
      role: "assistant",
      content: [{ type: "tool-call", toolCallId: id, toolName: "t", rawArguments: JSON.stringify(args) ?? "null", arguments: JSON.parse(JSON.stringify(args) ?? "null") }],
    }),
  ),
);

describe("request builder", () => {
  it("puts the system prompt first, then the transcript, with the pinned tools", () => {
    const tools = [{ name: "echo", description: "d", inputSchema: { type: "object" } }];
    const messages: Message[] = [{ role: "user", content: [{ type: "text", text: "hi" }] }];
    expect(buildRequest({ systemPrompt: "S", messages, tools })).toEqual({ messages: [{ role: "system", content: "S" }, ...messages], tools });
    expect(buildRequest({ systemPrompt: undefined, messages, tools }).messages).toEqual(messages);
  });

  it("hashes exactly sha256(canonicalJson(request)), with or without cached messages", () => {
    const hasher = createRequestHasher();
    fc.assert(
      fc.property(fc.array(messageArbitrary, { maxLength: 6 }), fc.option(fc.string()), fc.option(fc.integer({ min: 1, max: 100 })), (messages, system, maxOutputTokens) => {
        const request: ModelRequest = buildRequest({ systemPrompt: system ?? undefined, messages, tools: [] });
        if (maxOutputTokens !== null) request.maxOutputTokens = maxOutputTokens;
        const expected = sha256(canonicalJson(request));
        expect(hasher.hash(request)).toBe(expected);
        expect(hasher.hash(request)).toBe(expected); // second time from the cache
      }),
    );
  });

  it("a growing transcript hashes like a fresh one", () => {
    const hasher = createRequestHasher();
    const messages: Message[] = [];
    for (let turn = 0; turn < 20; turn++) {
      messages.push({ role: "user", content: [{ type: "text", text: `turn ${turn}` }] });
      const request = buildRequest({ systemPrompt: "S", messages, tools: [] });
      expect(hasher.hash(request)).toBe(sha256(canonicalJson(request)));
    }
  });
});
