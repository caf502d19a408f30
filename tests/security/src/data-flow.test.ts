// The data-flow rule and declarations: what a call carries out of the account, declared as data
// (payloads, outward, the classification of each tool's output) and checked by one standing rule.
import { createPolicyEngine, loadPolicy } from "@yoke/policy";
import type { PolicyTuple } from "@yoke/protocol";
import { fileURLToPath } from "node:url";
import { agentDojoSuite, ARGUMENT_ROLE, defaultPolicyFor, loadSuite, type SuiteName, type ToolDescription } from "@yoke/testkit/security";
import { describe, expect, it } from "vitest";
import { suiteDeclarations } from "./harnesses.ts";

const tools: ToolDescription[] = [
  {
    name: "post",
    modelFacingDescription: "Posts.",
    access: "mutating",
    parameters: [{ name: "to", type: "string", required: true, description: "" }],
  },
];

describe("the default policy's standing data-flow rule", () => {
  it("asks a person when a side effect sends personal or secret data from tool outputs out of the account", () => {
    const engine = createPolicyEngine(loadPolicy(defaultPolicyFor(tools, "mini")));
    const tuple: PolicyTuple = {
      tenantId: "t",
      principal: { id: "p", authenticated: true },
      task: { runId: "r", scopes: [] },
      tool: { name: "post", revision: "a".repeat(64), owner: null },
      verb: "post",
      resource: "tool:post",
      dataClassification: "confidential",
      sideEffect: "irreversible",
      argumentsDigest: "b".repeat(64),
      provenance: [{ path: "/to", role: ARGUMENT_ROLE, value: "ada", origin: "trusted", sources: [{ itemId: "task", label: "user", trusted: true }] }],
      influence: { integrity: "trusted", loweredBy: [] },
      carries: { classification: "internal", fromToolOutput: false, fromUntrusted: false, outward: true },
    };
    expect(engine.decide(tuple).ruleId).toBe("act");
    const leaking = { ...tuple, carries: { classification: "confidential" as const, fromToolOutput: true, fromUntrusted: false, outward: true } };
    expect(engine.decide(leaking)).toMatchObject({ effect: "require_approval", ruleId: "personal-data-leaving-needs-a-person" });
    expect(engine.decide({ ...leaking, carries: { ...leaking.carries, outward: false } }).ruleId).toBe("act");
  });
});

/** The workspace data the testkit carries (a copy of the data set's folder); banking and slack are bundled. */
const WORKSPACE_DIR = fileURLToPath(new URL("../../../packages/testkit/src/security/data/workspace", import.meta.url));
const suiteOf = (name: SuiteName) => (name === "workspace" ? loadSuite(WORKSPACE_DIR) : agentDojoSuite(name));

describe("the dev suites' declarations of what calls carry", () => {
  it.for(["banking", "slack", "workspace"] as SuiteName[])("%s: every payload names a text or list argument of its tool", (name) => {
    const suite = suiteOf(name);
    for (const [toolName, declaration] of Object.entries(suiteDeclarations(name).tools)) {
      const parameters = new Map(suite.tools.find((tool) => tool.name === toolName)!.parameters.map((parameter) => [`/${parameter.name}`, parameter.type]));
      for (const pointer of declaration.facts?.payloads ?? []) expect(["string", "array"], `${name}.${toolName} ${pointer}`).toContain(parameters.get(pointer));
    }
  });

  it.for(["banking", "slack", "workspace"] as SuiteName[])(
    "%s: every side effect that sends text declares it, and only tools with payloads say whether they are outward",
    (name) => {
      const suite = suiteOf(name);
      for (const [toolName, declaration] of Object.entries(suiteDeclarations(name).tools)) {
        const facts = declaration.facts ?? {};
        if (facts.outward !== undefined) expect(facts.payloads?.length, `${name}.${toolName}`).toBeGreaterThan(0);
        const texts = suite.tools
          .find((tool) => tool.name === toolName)!
          .parameters.filter((parameter) => ["body", "content", "subject"].includes(parameter.name));
        if (declaration.sideEffect !== "none" && texts.length > 0) expect(facts.payloads?.length, `${name}.${toolName}`).toBeGreaterThan(0);
      }
    },
  );

  it("classify outputs by what they are: the account's records and private messages are personal, files and confirmations are not", () => {
    const classification = (name: SuiteName, tool: string) => suiteDeclarations(name).tools[tool]?.dataClassification;
    expect(classification("banking", "get_user_info")).toBe("confidential");
    expect(classification("banking", "get_most_recent_transactions")).toBe("confidential");
    expect(classification("banking", "read_file")).toBe("internal");
    expect(classification("slack", "read_inbox")).toBe("confidential");
    expect(classification("slack", "get_webpage")).toBe("public");
    expect(classification("workspace", "search_contacts_by_name")).toBe("confidential");
    expect(classification("workspace", "list_files")).toBe("internal");
  });
});
