import { YokeError } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DEFAULT_TOOL_TIMEOUT_MS, defineTool } from "./define-tool.js";

const base = { description: "d", sideEffect: "none" as const, execute: async () => "ok" };

describe("defineTool", () => {
  it("derives the model's JSON Schema from the zod input schema (input side)", () => {
    const tool = defineTool({ ...base, name: "read_file", input: z.object({ path: z.string().min(1), limit: z.number().default(10) }) });
    expect(tool.spec).toEqual({
      name: "read_file",
      description: "d",
      inputSchema: {
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        properties: { path: { type: "string", minLength: 1 }, limit: { type: "number", default: 10 } },
        required: ["path"],
      },
    });
    expect(tool.timeoutMs).toBe(DEFAULT_TOOL_TIMEOUT_MS);
  });

  it("rejects bad names, timeouts and schemas without a JSON Schema form with CONFIG_INVALID", () => {
    const invalid = (make: () => unknown) => {
      try {
        make();
      } catch (error) {
        return YokeError.hasCode(error, "CONFIG_INVALID");
      }
      return false;
    };
    expect(invalid(() => defineTool({ ...base, name: "has space", input: z.object({}) }))).toBe(true);
    expect(invalid(() => defineTool({ ...base, name: "ok", input: z.object({}), timeoutMs: 0 }))).toBe(true);
    expect(invalid(() => defineTool({ ...base, name: "ok", input: z.object({ when: z.date() }) }))).toBe(true);
  });
});
