import { afterEach, describe, expect, it } from "vitest";
import { YokeError } from "@yoke/protocol";
import { createOpenAIProvider, strictSchemaViolations } from "./index.js";
import { ask, fixture, rejection, replay, type Replay } from "./__fixtures__/test-support.js";

let current: Replay | undefined;
afterEach(async () => {
  await current?.server.close();
  current = undefined;
});

const answerSchema = {
  type: "object",
  properties: { items: { type: "array", items: { type: "string" } }, count: { type: ["integer", "null"] } },
  required: ["items", "count"],
  additionalProperties: false,
};

describe("structured output: the strict JSON-schema subset", () => {
  it("accepts a closed schema with every property required", () => {
    expect(strictSchemaViolations(answerSchema)).toEqual([]);
  });

  it("names every place a schema leaves the subset", () => {
    expect(
      strictSchemaViolations({
        type: "object",
        properties: { a: { type: "string", minLength: 2 }, b: { oneOf: [{ type: "string" }] }, c: { type: "object", properties: {} } },
        required: ["a", "b"],
        additionalProperties: false,
      }),
    ).toMatchInlineSnapshot(`
      [
        {
          "message": "keyword "minLength" is not supported in strict mode",
          "path": "/properties/a",
        },
        {
          "message": "keyword "oneOf" is not supported in strict mode",
          "path": "/properties/b",
        },
        {
          "message": "a schema must declare a type, anyOf, enum, const or $ref",
          "path": "/properties/b",
        },
        {
          "message": "property "c" must be listed in required",
          "path": "/properties/c",
        },
        {
          "message": "an object must set additionalProperties: false",
          "path": "/properties/c",
        },
      ]
    `);
  });

  it("sends a strict json_schema text format on both APIs", async () => {
    const structuredOutput = { name: "todo_summary", schema: answerSchema };
    current = await replay([fixture("text.sse"), fixture("chat-text.sse")]);
    await current.provider.generate(ask("Summarize", { providerOptions: { openai: { structuredOutput } } }));
    expect((current.server.requests[0]!.body as { text: unknown }).text).toMatchInlineSnapshot(`
      {
        "format": {
          "name": "todo_summary",
          "schema": {
            "additionalProperties": false,
            "properties": {
              "count": {
                "type": [
                  "integer",
                  "null",
                ],
              },
              "items": {
                "items": {
                  "type": "string",
                },
                "type": "array",
              },
            },
            "required": [
              "items",
              "count",
            ],
            "type": "object",
          },
          "strict": true,
          "type": "json_schema",
        },
      }
    `);
    const chat = createOpenAIProvider({ model: "gpt-4.1-mini", api: "chat", baseURL: `${current.server.url}/v1`, apiKey: "sk-test" });
    await chat.generate(ask("Summarize", { providerOptions: { openai: { structuredOutput } } }));
    expect((current.server.requests[1]!.body as { response_format: unknown }).response_format).toMatchInlineSnapshot(`
      {
        "json_schema": {
          "name": "todo_summary",
          "schema": {
            "additionalProperties": false,
            "properties": {
              "count": {
                "type": [
                  "integer",
                  "null",
                ],
              },
              "items": {
                "items": {
                  "type": "string",
                },
                "type": "array",
              },
            },
            "required": [
              "items",
              "count",
            ],
            "type": "object",
          },
          "strict": true,
        },
        "type": "json_schema",
      }
    `);
  });

  it("sends the request's responseFormat as the json_schema format: strict when the schema is in the subset, else not", async () => {
    current = await replay([fixture("text.sse"), fixture("text.sse"), fixture("chat-text.sse")]);
    const loose = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
    await current.provider.generate(
      ask("Summarize", { responseFormat: { type: "json", schema: { $schema: "https://json-schema.org/draft/2020-12/schema", ...answerSchema } } }),
    );
    await current.provider.generate(ask("Weather", { responseFormat: { type: "json", name: "weather", description: "The weather.", schema: loose } }));
    const chat = createOpenAIProvider({ model: "gpt-4.1-mini", api: "chat", baseURL: `${current.server.url}/v1`, apiKey: "sk-test" });
    await chat.generate(ask("Weather", { responseFormat: { type: "json", schema: loose } }));
    const [strict, nonStrict, chatBody] = current.server.requests.map((request) => request.body as { text?: { format: unknown }; response_format?: unknown });
    // The root's `$schema` (zod adds it) is not sent: it is outside the strict subset and constrains nothing.
    expect(strict!.text!.format).toEqual({ type: "json_schema", name: "output", schema: answerSchema, strict: true });
    expect(nonStrict!.text!.format).toEqual({ type: "json_schema", name: "weather", schema: loose, strict: false, description: "The weather." });
    expect(chatBody!.response_format).toEqual({ type: "json_schema", json_schema: { name: "output", schema: loose, strict: false } });
  });

  it("an explicit providerOptions.openai.structuredOutput wins over responseFormat", async () => {
    current = await replay([fixture("text.sse")]);
    await current.provider.generate(
      ask("Summarize", {
        responseFormat: { type: "json", schema: { type: "object" } },
        providerOptions: { openai: { structuredOutput: { name: "todo_summary", schema: answerSchema } } },
      }),
    );
    expect((current.server.requests[0]!.body as { text: { format: { name: string; strict: boolean } } }).text.format).toMatchObject({
      name: "todo_summary",
      strict: true,
    });
  });

  it("rejects a schema outside the subset at admission, before any request", async () => {
    current = await replay([]);
    const error = await rejection(
      current.provider.generate(
        ask("Summarize", {
          providerOptions: { openai: { structuredOutput: { name: "loose", schema: { type: "object", properties: { a: { type: "string" } } } } } },
        }),
      ),
    );
    expect(error.code).toBe("PROVIDER_ADMISSION_REJECTED");
    expect(error.details.violations).toEqual([
      { path: "", message: "an object must set additionalProperties: false" },
      { path: "/properties/a", message: 'property "a" must be listed in required' },
    ]);
    expect(current.server.requests).toHaveLength(0);
  });
});

describe("capability matrix and admission", () => {
  it("reports a matrix per model family", () => {
    const families = ["gpt-5-mini", "o4-mini", "gpt-4.1", "gpt-4o-mini", "some-new-model"].map((model) => {
      const provider = createOpenAIProvider({ model });
      return [model, provider.family, provider.capabilities.contextWindow, provider.capabilities.usage.reasoningTokens];
    });
    expect(families).toEqual([
      ["gpt-5-mini", "gpt-5", 400_000, true],
      ["o4-mini", "o-series", 200_000, true],
      ["gpt-4.1", "gpt-4.1", 1_047_576, false],
      ["gpt-4o-mini", "gpt-4o", 128_000, false],
      ["some-new-model", "default", 128_000, false],
    ]);
  });

  it("rejects what the target cannot represent and warns about what it drops", () => {
    const provider = createOpenAIProvider({ model: "gpt-4o-mini", capabilities: { toolCalls: false } });
    const thrown = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        return YokeError.isInstance(error) ? error.code : "not a YokeError";
      }
      return "no throw";
    };
    const tool = { name: "t", description: "", inputSchema: { type: "object" } };
    expect(thrown(() => provider.admit(ask("hi", { tools: [tool] })))).toBe("PROVIDER_ADMISSION_REJECTED");
    expect(thrown(() => provider.admit(ask("hi", { maxOutputTokens: 1_000_000 })))).toBe("PROVIDER_ADMISSION_REJECTED");
    expect(thrown(() => provider.admit(ask("hi", { providerOptions: { openai: { reasoningEffort: "extreme" } } })))).toBe("PROVIDER_ADMISSION_REJECTED");
    expect(createOpenAIProvider({ model: "gpt-5-mini" }).admit(ask("hi", { temperature: 0.3 }))).toEqual([
      "temperature is not supported by reasoning models and was not sent",
    ]);
  });
});
