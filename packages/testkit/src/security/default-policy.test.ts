import { describe, expect, it } from "vitest";
import { agentDojoSuite } from "./data.js";
import { ARGUMENT_ROLE, defaultDeclarationsFor, defaultPolicyFor } from "./default-policy.js";
import type { ToolDescription } from "./types.js";

const tools: ToolDescription[] = [
  { name: "look", modelFacingDescription: "Looks.", access: "read-only", parameters: [{ name: "q", type: "string", required: true, description: "" }] },
  {
    name: "post",
    modelFacingDescription: "Posts.",
    access: "mutating",
    parameters: [
      { name: "to", type: "string", required: true, description: "" },
      { name: "a/b", type: "number", required: false, description: "" },
    ],
  },
];

/** Every string a document holds, keys aside. */
function stringsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (value !== null && typeof value === "object") return Object.values(value).flatMap(stringsOf);
  return [];
}

describe("the default derived from tools.json alone", () => {
  it("declares read-only tools side-effect free, every argument of a mutating tool for provenance and every text one as a payload, trusting no output field", () => {
    const declared = defaultDeclarationsFor(tools, "mini");
    expect(declared).toEqual({
      version: 1,
      suite: "mini",
      tools: {
        look: { sideEffect: "none", facts: { verb: "look", resource: "tool:look" } },
        post: {
          sideEffect: "irreversible",
          facts: {
            verb: "post",
            resource: "tool:post",
            destinations: [
              { pointer: "/to", role: ARGUMENT_ROLE },
              { pointer: "/a~1b", role: ARGUMENT_ROLE },
            ],
            payloads: ["/to"],
          },
        },
      },
    });
  });

  it("allows reads, lets a side effect run unless a value came only from third-party content (or an address inside a text from nowhere), and names no value", () => {
    const policy = defaultPolicyFor(tools, "mini");
    expect(policy.rules.map((rule) => [rule.id, rule.effect])).toEqual([
      ["read", "allow"],
      ["act", "allow"],
      ["third-party-value-needs-a-person", "require_approval"],
      ["invented-address-needs-a-person", "require_approval"],
      ["personal-data-leaving-needs-a-person", "require_approval"],
    ]);
    expect(policy.rules[0]!.match.tool).toEqual({ names: ["look"], revisions: "*", owners: "*" });
    expect(policy.rules.slice(1).every((rule) => JSON.stringify(rule.match.tool) === JSON.stringify({ names: ["post"], revisions: "*", owners: "*" }))).toBe(
      true,
    );
    // What the rules' matches hold: wildcards, tool names, side-effect classes, roles and origins; never a value from a suite's data.
    const vocabulary = new Set([
      "*",
      "look",
      "post",
      "none",
      "idempotent",
      "reversible",
      "irreversible",
      ARGUMENT_ROLE,
      "email",
      "iban",
      "url",
      "channel",
      "untrusted_only",
      "unsourced",
      "some",
      "confidential",
      "restricted",
    ]);
    expect(policy.rules.flatMap((rule) => stringsOf(rule.match)).filter((text) => !vocabulary.has(text))).toEqual([]);
  });

  it("names each dev suite's tools by their access and nothing else", () => {
    for (const name of ["banking", "slack"]) {
      const suite = agentDojoSuite(name);
      const policy = defaultPolicyFor(suite.tools, name);
      const named = policy.rules.flatMap((rule) => (rule.match.tool as { names: string[] }).names);
      expect(new Set(named)).toEqual(new Set(suite.tools.map((tool) => tool.name)));
    }
  });
});
