import { jsonSchema } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { inputOf } from "./__fixtures__/inputs.js";
import { schemaVerifier } from "./schema-verifier.js";

const report = z.object({ fixed: z.array(z.string()).min(1), tests: z.number().int() });
const verifier = schemaVerifier({ id: "report", schema: report });

describe("schemaVerifier", () => {
  it("checks answer.output when the run has structured output", async () => {
    expect(await verifier.verify(inputOf({ text: "not json at all", output: { fixed: ["adds"], tests: 12 } }))).toMatchObject({
      verifierId: "report",
      kind: "schema",
      passed: true,
      details: { source: "output" },
    });
  });

  it("parses the text as JSON when there is no output (a ```json fence allowed)", async () => {
    expect((await verifier.verify(inputOf({ text: '{"fixed":["adds"],"tests":3}' }))).passed).toBe(true);
    expect((await verifier.verify(inputOf({ text: '```json\n{"fixed":["adds"],"tests":3}\n```' }))).passed).toBe(true);
  });

  it("fails with every issue in the reason and in details, path by path", async () => {
    const verdict = await verifier.verify(inputOf({ output: { fixed: [], tests: "three" } }));
    expect(verdict).toMatchObject({ passed: false, retry: true });
    expect(verdict.reason).toContain("- fixed: ");
    expect(verdict.reason).toContain("- tests: ");
    const issues = (verdict.details as { issues: { path: string[]; message: string }[] }).issues;
    expect(issues.map((issue) => issue.path)).toEqual([["fixed"], ["tests"]]);
  });

  it("an answer that is not JSON fails, saying so", async () => {
    const verdict = await verifier.verify(inputOf({ text: "I fixed it!" }));
    expect(verdict).toMatchObject({ passed: false, retry: true, details: { source: "text" } });
    expect(verdict.reason).toContain("the answer is not JSON");
  });

  it("takes any Standard Schema: protocol's jsonSchema with a validator", async () => {
    const even = jsonSchema<number>(
      { type: "number" },
      { validate: (value) => (typeof value === "number" && value % 2 === 0 ? { success: true, value } : { success: false, error: new Error("not even") }) },
    );
    const check = schemaVerifier({ id: "even", schema: even });
    expect((await check.verify(inputOf({ output: 4 }))).passed).toBe(true);
    const odd = await check.verify(inputOf({ output: 3 }));
    expect(odd.reason).toContain("- (the value): not even");
  });

  it("a validator that throws is VERIFIER_FAILED; a non-schema is CONFIG_INVALID", async () => {
    const throwing = schemaVerifier({
      id: "boom",
      schema: {
        "~standard": {
          version: 1,
          vendor: "x",
          validate: () => {
            throw new Error("validator bug");
          },
        },
      },
    });
    await expect(throwing.verify(inputOf({ output: 1 }))).rejects.toMatchObject({ code: "VERIFIER_FAILED", details: { verifierId: "boom" } });
    expect(() => schemaVerifier({ id: "bad", schema: {} as never })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
  });

  it("is replay-safe", () => {
    expect(verifier.replaySafe).toBe(true);
  });
});
