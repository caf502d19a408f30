import { describe, expect, test } from "vitest";
import { baseMatch, baseTuple } from "./__fixtures__/tuples.js";
import { allowRule, approvalRule, createPolicyEngine, definePolicy, denyRule, loadPolicy } from "./index.js";

describe("TypeScript builders", () => {
  test("build the rules a JSON document would hold", () => {
    expect(allowRule("a", baseMatch, "why")).toEqual({ id: "a", effect: "allow", reason: "why", match: baseMatch });
    expect(approvalRule("b", baseMatch)).toEqual({ id: "b", effect: "require_approval", match: baseMatch });
    expect(denyRule("c", { tenant: ["globex"] })).toEqual({ id: "c", effect: "deny", match: { tenant: ["globex"] } });
    const policy = definePolicy({ version: 1, id: "ts", rules: [allowRule("a", baseMatch), denyRule("c", { tenant: ["globex"] })] });
    expect(policy).toEqual(loadPolicy(JSON.parse(JSON.stringify(policy))));
    expect(createPolicyEngine(policy).decide(baseTuple)).toMatchObject({ effect: "allow", ruleId: "a" });
  });

  test("definePolicy validates at once: duplicate ids are POLICY_INVALID", () => {
    expect(() => definePolicy({ version: 1, id: "ts", rules: [allowRule("a", baseMatch), allowRule("a", baseMatch)] })).toThrow(
      expect.objectContaining({ code: "POLICY_INVALID" }),
    );
  });
});
