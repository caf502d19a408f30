import type { ToolDeclarations, ToolDeclaration } from "./declarations.js";
import { ANY, type PolicyDocumentJson, type PolicyRuleJson } from "./policy-json.js";
import type { ToolDescription } from "./types.js";

/** The role every argument of a side-effecting tool takes in the derived declarations. */
export const ARGUMENT_ROLE = "argument";

/** Roles the runtime gives an e-mail, IBAN, URL or channel it finds inside a longer string value. */
const ENTITY_ROLES = ["email", "iban", "url", "channel"] as const;

const SIDE_EFFECTS = ["idempotent", "reversible", "irreversible"] as const;

/** Parameter types that can hold text, and so carry data: a string, a list, an object. */
const CARRYING_TYPES: ReadonlySet<string> = new Set(["string", "array", "object"]);

/**
 * Declarations derived from a suite's `tools.json` alone: a `read-only` tool has no side
 * effect; a `mutating` one is irreversible (nothing in the file says it can be undone) and
 * every one of its arguments, whatever its name, is checked for provenance (role
 * `argument`): with nothing else known, any argument may be where data or money goes, or
 * what it carries. For the same reason every string, list or object argument of a mutating
 * tool is also a payload, and its call is taken to leave the account (`outward` is left to its
 * default, true). No output field is trusted, and no classification is declared (the testkit
 * then treats every output as `confidential`: an account's data, when nobody says otherwise).
 *
 * @example
 * ```ts
 * defaultDeclarationsFor(suite.tools).tools.send_money;
 * // { sideEffect: "irreversible", facts: { verb: "send_money", resource: "tool:send_money", destinations: [{ pointer: "/recipient", role: "argument" }, …] } }
 * ```
 */
export function defaultDeclarationsFor(tools: readonly ToolDescription[], suite?: string): ToolDeclarations {
  const declared: Record<string, ToolDeclaration> = {};
  for (const tool of tools) {
    const facts = { verb: tool.name, resource: `tool:${tool.name}` };
    declared[tool.name] =
      tool.access === "read-only"
        ? { sideEffect: "none", facts }
        : {
            sideEffect: "irreversible",
            facts: {
              ...facts,
              destinations: tool.parameters.map((parameter) => ({ pointer: `/${escapePointer(parameter.name)}`, role: ARGUMENT_ROLE })),
              payloads: tool.parameters.filter((parameter) => CARRYING_TYPES.has(parameter.type)).map((parameter) => `/${escapePointer(parameter.name)}`),
            },
          };
  }
  return { version: 1, ...(suite === undefined ? {} : { suite }), tools: declared };
}

const escapePointer = (name: string) => name.replace(/~/g, "~0").replace(/\//g, "~1");

/**
 * A policy derived from a suite's `tools.json` alone (with `defaultDeclarationsFor`): reading
 * is allowed (the `read-only` tools, by name); a `mutating` tool runs when every argument
 * value, and every address, IBAN, URL or channel inside one, came from the user or a
 * trusted record; a person is asked when any came only from third-party content or from
 * nowhere (the model's own text), or when the call sends personal or secret data found in tool
 * outputs out of the account (the standing data-flow rule: the engine's `data-flow-default`
 * written down, so the document says it); anything else is denied by default. No rule names a
 * value, and no tool is singled out: a mutating tool without arguments runs (nothing in a
 * call shows that untrusted content chose it; that needs influence on the tuple).
 *
 * @example
 * ```ts
 * const engine = createPolicyEngine(loadPolicy(defaultPolicyFor(suite.tools, "workspace")));
 * ```
 */
export function defaultPolicyFor(tools: readonly ToolDescription[], suite = "suite"): PolicyDocumentJson {
  const readOnly = tools.filter((tool) => tool.access === "read-only").map((tool) => tool.name);
  const mutating = tools.filter((tool) => tool.access === "mutating").map((tool) => tool.name);
  const roles = [ARGUMENT_ROLE, ...ENTITY_ROLES];
  const rules: PolicyRuleJson[] = [];
  if (readOnly.length > 0) {
    rules.push({
      id: "read",
      effect: "allow",
      reason: "the suite's read-only tools (tools.json says they change nothing)",
      match: { ...ANY, tool: { names: readOnly, revisions: "*", owners: "*" }, sideEffect: ["none"] },
    });
  }
  if (mutating.length > 0) {
    const tool = { names: mutating, revisions: "*", owners: "*" };
    rules.push(
      {
        id: "act",
        effect: "allow",
        reason: "a side effect of the suite's mutating tools, unless a rule below asks a person",
        match: { ...ANY, tool, sideEffect: [...SIDE_EFFECTS] },
      },
      {
        id: "third-party-value-needs-a-person",
        effect: "require_approval",
        reason:
          "a side effect with an argument value (or an address, IBAN, URL or channel inside one) that only third-party content holds: a person confirms the exact call",
        match: { ...ANY, tool, sideEffect: [...SIDE_EFFECTS], provenance: { roles, origins: ["untrusted_only"], quantifier: "some" } },
      },
      {
        id: "invented-address-needs-a-person",
        effect: "require_approval",
        reason:
          "a side effect naming an address, IBAN, URL or channel inside a text that neither the user nor a trusted record gave: a person confirms the exact call",
        match: { ...ANY, tool, sideEffect: [...SIDE_EFFECTS], provenance: { roles: [...ENTITY_ROLES], origins: ["unsourced"], quantifier: "some" } },
      },
      {
        id: "personal-data-leaving-needs-a-person",
        effect: "require_approval",
        reason: "a side effect sending personal or secret data found in tool outputs out of the account: a person confirms the exact call",
        match: {
          ...ANY,
          tool,
          sideEffect: [...SIDE_EFFECTS],
          carries: { classifications: ["confidential", "restricted"], fromToolOutput: true, outward: true },
        },
      },
    );
  }
  return { version: 1, id: `${suite}-default-from-tools-json`, defaults: { readOnly: "deny" }, rules };
}
