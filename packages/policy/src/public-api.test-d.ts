// The public API's types: a TypeScript author cannot leave a dimension out of a granting rule.
import type { PolicyEngineV1 } from "@yoke/protocol";
import { expectTypeOf, test } from "vitest";
import { anyMatch, baseMatch } from "./__fixtures__/tuples.js";
import { allowRule, approvalRule, createPolicyEngine, definePolicy, denyRule, loadPolicy, type PolicyDocument, type RuleMatch } from "./index.js";

test("allowRule and approvalRule need every dimension; denyRule any subset", () => {
  const { provenance: _provenance, ...noProvenance } = baseMatch;
  const { tool, ...rest } = baseMatch;
  // @ts-expect-error provenance is missing
  allowRule("a", noProvenance);
  // @ts-expect-error tool.owners is missing
  approvalRule("b", { ...rest, tool: { names: tool.names, revisions: tool.revisions } });
  // @ts-expect-error "any" is not the wildcard "*"
  allowRule("c", { ...baseMatch, verb: "any" });
  // @ts-expect-error a bare string is not a list
  allowRule("d", { ...baseMatch, tenant: "acme" });
  // @ts-expect-error not a side-effect class
  allowRule("e", { ...baseMatch, sideEffect: ["irreversable"] });
  // @ts-expect-error null only where the tuple may lack the value
  allowRule("f", { ...baseMatch, verb: [null] });
  allowRule("g", anyMatch);
  denyRule("h", { tool: { names: ["send_money"] } });
  denyRule("i", {});
  // @ts-expect-error a deny rule carries no provenance condition
  denyRule("j", { provenance: { roles: ["recipient"], origins: ["trusted"] } });
});

test("createPolicyEngine gives a PolicyEngineV1; loadPolicy a PolicyDocument", () => {
  const document = definePolicy({ version: 1, id: "p", rules: [allowRule("a", baseMatch), denyRule("d", { tenant: ["globex"] })] });
  expectTypeOf(createPolicyEngine(document)).toEqualTypeOf<PolicyEngineV1>();
  expectTypeOf(createPolicyEngine([allowRule("a", baseMatch)])).toEqualTypeOf<PolicyEngineV1>();
  expectTypeOf(loadPolicy).returns.toEqualTypeOf<PolicyDocument>();
  expectTypeOf<RuleMatch["principal"]["authenticated"]>().toEqualTypeOf<"*" | readonly boolean[]>();
});

test("matching takes only the dimensions a rule names, each as the full rule types it", async () => {
  const { matching } = await import("./index.js");
  expectTypeOf(matching({ sideEffect: ["none"] })).toEqualTypeOf<RuleMatch>();
  allowRule("k", matching({ tool: { names: ["send_money"] } }));
  // @ts-expect-error "any" is not the wildcard "*"
  matching({ verb: "any" });
  // @ts-expect-error not a side-effect class
  matching({ sideEffect: ["irreversable"] });
});
