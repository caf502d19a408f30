import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "./define-tool.js";
import { YokeError } from "./errors.js";

function configErrorOf(define: () => unknown): YokeError<"CONFIG_INVALID"> {
  try {
    define();
  } catch (error) {
    if (YokeError.hasCode(error, "CONFIG_INVALID")) return error;
    throw error;
  }
  throw new Error("expected CONFIG_INVALID");
}

const base = {
  name: "send_mail",
  description: "Send a mail.",
  input: z.object({ to: z.string() }),
  sideEffect: "irreversible",
  execute: async () => "sent",
} as const;

/** What plain JavaScript can pass: the types do not hold there. */
function defineLoosely(definition: Record<string, unknown>): unknown {
  return defineTool(definition as unknown as Parameters<typeof defineTool>[0]);
}

describe("defineTool: the fields plain JavaScript can omit", () => {
  it("a missing sideEffect is CONFIG_INVALID naming the tool and the field", () => {
    const { sideEffect: _omitted, ...definition } = base;
    const error = configErrorOf(() => defineLoosely(definition));
    expect(error.message).toBe('defineTool: tool "send_mail": sideEffect is missing; it must be one of none, idempotent, reversible, irreversible');
    expect(error.details).toMatchObject({ tool: "send_mail", field: "sideEffect" });
  });

  it("an unknown sideEffect names the value given", () => {
    const error = configErrorOf(() => defineLoosely({ ...base, sideEffect: "readonly" }));
    expect(error.message).toContain('sideEffect is "readonly"');
    expect(error.details).toMatchObject({ tool: "send_mail", field: "sideEffect" });
  });

  it.each([
    ["description", { description: undefined }],
    ["execute", { execute: undefined }],
    ["execute", { execute: "run" }],
    ["reconcile", { reconcile: {} }],
    ["compensate", { compensate: 1 }],
    ["access", { access: "all" }],
    ["policy", { policy: [] }],
  ])("a bad %s is CONFIG_INVALID naming it", (field, change) => {
    const error = configErrorOf(() => defineLoosely({ ...base, ...change }));
    expect(error.details).toMatchObject({ tool: "send_mail", field });
    expect(error.message).toContain(`tool "send_mail": ${field} `);
  });

  it("a missing name is CONFIG_INVALID naming the field", () => {
    const { name: _omitted, ...definition } = base;
    const error = configErrorOf(() => defineLoosely(definition));
    expect(error.details).toMatchObject({ field: "name" });
  });

  it("a complete definition still defines the tool", () => {
    expect(defineLoosely({ ...base })).toMatchObject({ name: "send_mail", sideEffect: "irreversible" });
  });
});
