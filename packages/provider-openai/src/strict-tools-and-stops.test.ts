import { describe, expect, it } from "vitest";
import type { ToolSpec } from "@yoke/protocol";
import { createOpenAIProvider } from "./index.js";
import { ask, fixture, rejection, replayPerTest } from "./__fixtures__/test-support.js";

const open = replayPerTest();

const chat = { api: "chat" as const, model: "gpt-4.1-mini" };
const strictTool: ToolSpec = {
  name: "write_file",
  description: "Write a file.",
  inputSchema: {
    type: "object",
    properties: { path: { type: "string" }, content: { type: "string" } },
    required: ["path", "content"],
    additionalProperties: false,
  },
  strict: true,
};
// Three ways out of the strict subset: an optional property, an open object, an unsupported keyword.
const looseTool: ToolSpec = {
  name: "search",
  description: "Search.",
  inputSchema: {
    type: "object",
    properties: {
      query: { type: "string", minLength: 1 },
      limit: { type: "integer" },
      filters: { type: "object", properties: { tag: { type: "string" } }, required: ["tag"] },
    },
    required: ["query", "filters"],
    additionalProperties: false,
  },
  strict: true,
};

describe("strict function tools", () => {
  it("are declared by the capability matrix on both APIs", () => {
    expect(createOpenAIProvider({ model: "gpt-5-mini" }).capabilities.strictTools).toBe(true);
    expect(createOpenAIProvider(chat).capabilities.strictTools).toBe(true);
  });

  it("go out with strict: true on both APIs when the schema is in the strict subset; other tools stay non-strict", async () => {
    const plain: ToolSpec = { name: "list_files", description: "List files.", inputSchema: { type: "object", properties: {} } };
    const responses = await open([fixture("text.sse")]);
    const answer = await responses.provider.generate(ask("Write it", { tools: [strictTool, plain] }));
    // Strict mode does not hold for parallel calls: said, unless they are turned off.
    expect(answer.warnings).toEqual([
      "strict tools: parallel tool calls may not match their schemas; set providerOptions.openai.parallelToolCalls to false for the guarantee",
    ]);
    expect(responses.provider.admit(ask("Write it", { tools: [strictTool], providerOptions: { openai: { parallelToolCalls: false } } }))).toEqual([]);
    expect((responses.server.requests[0]!.body as { tools: unknown[] }).tools).toEqual([
      { type: "function", name: "write_file", description: "Write a file.", parameters: strictTool.inputSchema, strict: true },
      { type: "function", name: "list_files", description: "List files.", parameters: plain.inputSchema, strict: false },
    ]);
    const chatReplay = await open([fixture("chat-text.sse")], chat);
    await chatReplay.provider.generate(ask("Write it", { tools: [strictTool, plain] }));
    expect((chatReplay.server.requests[0]!.body as { tools: unknown[] }).tools).toEqual([
      { type: "function", function: { name: "write_file", description: "Write a file.", parameters: strictTool.inputSchema, strict: true } },
      { type: "function", function: { name: "list_files", description: "List files.", parameters: plain.inputSchema } },
    ]);
  });

  it("are refused at admission, every violation listed, with no request made, when strict mode cannot represent the schema", async () => {
    for (const options of [{}, chat]) {
      const { server, provider } = await open([fixture("text.sse")], options);
      const error = await rejection(provider.generate(ask("Search", { tools: [strictTool, looseTool] })));
      expect(error.code).toBe("PROVIDER_ADMISSION_REJECTED");
      expect(error.details.violations).toEqual([
        { tool: "search", path: "/properties/query", message: 'keyword "minLength" is not supported in strict mode' },
        { tool: "search", path: "/properties/limit", message: 'property "limit" must be listed in required' },
        { tool: "search", path: "/properties/filters", message: "an object must set additionalProperties: false" },
      ]);
      expect(error.message).toContain("search /properties/limit");
      expect(server.requests).toHaveLength(0);
    }
  });

  it("are refused when the model has no strict mode", async () => {
    const { server, provider } = await open([], { capabilities: { strictTools: false } });
    expect((await rejection(provider.generate(ask("Write it", { tools: [strictTool] })))).code).toBe("PROVIDER_ADMISSION_REJECTED");
    expect(server.requests).toHaveLength(0);
  });
});

describe("stop sequences", () => {
  it("go out as stop on Chat Completions, which takes up to 4", async () => {
    const { server, provider } = await open([fixture("chat-text.sse")], chat);
    expect(provider.capabilities.maxStopSequences).toBe(4);
    await provider.generate(ask("Count", { stopSequences: ["END", "###"] }));
    expect((server.requests[0]!.body as { stop: unknown }).stop).toEqual(["END", "###"]);
    const error = await rejection(provider.generate(ask("Count", { stopSequences: ["a", "b", "c", "d", "e"] })));
    expect([error.code, error.details.stopSequences]).toEqual(["PROVIDER_ADMISSION_REJECTED", 5]);
    expect(server.requests).toHaveLength(1);
  });

  it("are refused, not dropped, on the Responses API (it has no stop parameter) and for reasoning models on Chat", async () => {
    const { server, provider } = await open([fixture("text.sse")]);
    expect(provider.capabilities.maxStopSequences).toBe(0);
    const error = await rejection(provider.generate(ask("Count", { stopSequences: ["END"] })));
    expect([error.code, error.details.api]).toEqual(["PROVIDER_ADMISSION_REJECTED", "responses"]);
    const reasoningChat = createOpenAIProvider({ model: "gpt-5-mini", api: "chat", baseURL: `${server.url}/v1`, apiKey: "sk-test" });
    expect(reasoningChat.capabilities.maxStopSequences).toBe(0);
    expect((await rejection(reasoningChat.generate(ask("Count", { stopSequences: ["END"] })))).code).toBe("PROVIDER_ADMISSION_REJECTED");
    expect(server.requests).toHaveLength(0);
    // An empty list asks for nothing.
    await provider.generate(ask("Count", { stopSequences: [] }));
    expect(server.requests[0]!.body).not.toHaveProperty("stop");
  });
});
