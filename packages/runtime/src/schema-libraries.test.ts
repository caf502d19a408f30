// Tools declared with every schema library Yoke accepts, each run end to end: the model is
// shown the library's JSON Schema, valid arguments reach the handler as the library's own
// validated value, invalid ones go back to the model as TOOL_INPUT_INVALID with the
// library's issues.
import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { YokeError, canonicalJson, type Message, type ToolResultPart } from "@yoke/protocol";
import { callTools, say } from "@yoke/testkit";
import { type } from "arktype";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { z as z3 } from "zod3";
import { rig } from "./__fixtures__/harness-fixtures.js";
import { defineTool, jsonSchema, type AnyTool } from "./define-tool.js";

function resultsShown(messages: readonly Message[]): ToolResultPart[] {
  const tool = messages.filter((message) => message.role === "tool").at(-1);
  return tool?.role === "tool" ? tool.content : [];
}

/** A `forecast` tool over `input`, recording what its handler received. */
function forecast(input: Parameters<typeof defineTool>[0]["input"]) {
  const received: unknown[] = [];
  const tool: AnyTool = defineTool({
    name: "forecast",
    description: "Weather for a city over some days.",
    input,
    sideEffect: "none",
    execute: async (value) => {
      received.push(value);
      return "sunny";
    },
  });
  return { tool, received };
}

const libraries: [string, () => ReturnType<typeof forecast>, RegExp][] = [
  ["zod 3", () => forecast(z3.object({ city: z3.string().min(1), days: z3.number().int().default(3) })), /- city: Expected string, received number/],
  [
    "valibot (toStandardJsonSchema)",
    () => forecast(toStandardJsonSchema(v.object({ city: v.pipe(v.string(), v.minLength(1)), days: v.optional(v.number(), 3) }))),
    /- city: Invalid type: Expected string but received 42/,
  ],
  ["arktype", () => forecast(type({ city: "string > 0", "days?": "number.integer" })), /city must be a string \(was a number\)/],
  [
    "a plain JSON Schema with a validator function",
    () =>
      forecast(
        jsonSchema<{ city: string }>(
          { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
          {
            validate: async (value) =>
              typeof (value as { city?: unknown }).city === "string"
                ? { success: true, value: value as { city: string } }
                : { success: false, error: new Error("city must be a string") },
          },
        ),
      ),
    /- \(the arguments\): city must be a string/,
  ],
  [
    "a plain JSON Schema validated by a zod 3 schema",
    () =>
      forecast(jsonSchema({ type: "object", properties: { city: { type: "string" } }, required: ["city"] }, { validate: z3.object({ city: z3.string() }) })),
    /- city: Expected string, received number/,
  ],
];

describe("tools declared with any Standard Schema run end to end", () => {
  it.each(libraries)("%s: valid arguments reach the handler validated; invalid ones go back as TOOL_INPUT_INVALID", async (_label, make, issue) => {
    const { tool, received } = make();
    expect(tool.spec.inputSchema).toMatchObject({ type: "object", properties: { city: { type: "string" } }, required: ["city"] });
    const { harness, model } = rig(
      [
        callTools([{ name: "forecast", args: { city: "Paris" } }]),
        (request) => {
          expect(request.tools.map((spec) => spec.name)).toEqual(["forecast"]);
          expect(resultsShown(request.messages)[0]?.result.status).toBe("ok");
          return callTools([{ name: "forecast", args: { city: 42 } }]);
        },
        (request) => {
          const [result] = resultsShown(request.messages);
          expect(result?.result.error?.code).toBe("TOOL_INPUT_INVALID");
          expect(result?.result.error?.message).toMatch(/the arguments for forecast do not match its input schema:\n/);
          expect(result?.result.error?.message).toMatch(issue);
          return say("done");
        },
      ],
      { tools: [tool] },
    );
    const { outcome } = await harness.start("Weather in Paris?");
    model.assertConsumed();
    expect(outcome?.status).toBe("completed");
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ city: "Paris" });
  });

  it("the handler receives the schema's output: zod 3 and valibot defaults are applied", async () => {
    for (const make of [libraries[0]![1], libraries[1]![1]]) {
      const { tool, received } = make();
      const { harness } = rig([callTools([{ name: "forecast", args: { city: "Oslo" } }]), say("done")], { tools: [tool] });
      await harness.start("t");
      expect(received).toEqual([{ city: "Oslo", days: 3 }]);
    }
  });

  it("an asynchronous validator is awaited, and its verdict is final", async () => {
    let checks = 0;
    const slow = jsonSchema<{ n: number }>(
      { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
      {
        validate: async (value) => {
          checks += 1;
          await new Promise((resolve) => setImmediate(resolve));
          const n = (value as { n?: unknown }).n;
          return typeof n === "number" && n > 0 ? { success: true, value: { n } } : { success: false, error: new Error("n must be positive") };
        },
      },
    );
    const seen: number[] = [];
    const tool = defineTool({
      name: "count",
      description: "d",
      input: slow,
      sideEffect: "none",
      execute: async ({ n }) => {
        seen.push(n);
        return "ok";
      },
    });
    const { harness, model } = rig(
      [
        callTools([
          { name: "count", args: { n: 2 } },
          { name: "count", args: { n: -1 } },
        ]),
        (request) => {
          const [first, second] = resultsShown(request.messages);
          expect(first?.result.status).toBe("ok");
          expect(second?.result.error?.code).toBe("TOOL_INPUT_INVALID");
          expect(second?.result.error?.message).toContain("the arguments for count do not match its input schema:\n- (the arguments): n must be positive");
          return say("done");
        },
      ],
      { tools: [tool] },
    );
    await harness.start("t");
    model.assertConsumed();
    expect(seen).toEqual([2]);
    expect(checks).toBe(2);
  });

  it("a zod 3 schema gives the same JSON Schema bytes every time (tool specs are journaled and hashed)", () => {
    const make = () => z3.object({ city: z3.string().describe("the city"), unit: z3.enum(["c", "f"]).optional(), tags: z3.array(z3.string()).max(3) });
    const first = forecast(make()).tool.spec;
    const second = forecast(make()).tool.spec;
    expect(canonicalJson(first)).toBe(canonicalJson(second));
    expect(JSON.stringify(first)).toBe(JSON.stringify(second));
  });

  it("a schema with no JSON Schema form fails at defineTool with CONFIG_INVALID naming the fix, never during a run", () => {
    const attempt = (input: unknown) => {
      try {
        defineTool({ name: "t", description: "d", input: input as never, sideEffect: "none", execute: async () => "ok" });
      } catch (error) {
        return error;
      }
      return undefined;
    };
    const plainValibot = attempt(v.object({ city: v.string() }));
    expect(YokeError.hasCode(plainValibot, "CONFIG_INVALID")).toBe(true);
    expect((plainValibot as Error).message).toMatch(
      /valibot schema cannot say what it accepts as JSON Schema.*jsonSchema\(json, \{ validate: schema \}\).*toStandardJsonSchema/,
    );
    const zod3Date = attempt(z3.object({ when: z3.date() }));
    expect(YokeError.hasCode(zod3Date, "CONFIG_INVALID")).toBe(true);
    expect((zod3Date as Error).message).toMatch(/ZodDate at when has no JSON Schema form/);
    const notASchema = attempt({ type: "object" });
    expect(YokeError.hasCode(notASchema, "CONFIG_INVALID")).toBe(true);
    expect((notASchema as Error).message).toMatch(/not a Standard Schema/);
  });
});
