import { YokeError } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { agentDojoSuite } from "./data.js";
import { checkDeclarations, parseToolDeclarations, policyFactsOf, type ToolDeclaration } from "./declarations.js";
import { defaultDeclarationsFor } from "./default-policy.js";
import type { SecurityEnvironment } from "./tool-support.js";

const env = (state: Record<string, unknown>): SecurityEnvironment => ({ state: state as never, dispatched: [] });

describe("tool declarations", () => {
  const share: ToolDeclaration = {
    sideEffect: "irreversible",
    facts: {
      verb: "share",
      resource: "doc:{args.id}:{state.owner.name}",
      destination: "email:{args.to}",
      expectedEffect: "share:new",
      destinations: [{ pointer: "/to", role: "email" }],
    },
    variants: [
      { when: { kind: "not", predicate: { kind: "length", path: "args.to", op: ">", value: 0 } }, verb: "unshare", unset: ["destination", "destinations"] },
      {
        when: { kind: "list-any", path: "state.contacts", where: { kind: "state-equals", path: "address", value: { $ref: "args.to" } } },
        expectedEffect: "share:known",
      },
    ],
  };

  it("fill {args.…} and {state.…} in the facts (an absent value is empty), and apply the first variant whose condition holds", () => {
    const world = env({ owner: { name: "ada" }, contacts: [{ address: "bob@example.com" }] });
    expect(policyFactsOf(share, world, { id: 7, to: "eve@example.com" })).toEqual({
      verb: "share",
      resource: "doc:7:ada",
      destination: "email:eve@example.com",
      expectedEffect: "share:new",
      destinations: [{ pointer: "/to", role: "email" }],
    });
    // `$ref` compares a list element with an argument.
    expect(policyFactsOf(share, world, { id: 7, to: "bob@example.com" }).expectedEffect).toBe("share:known");
    // The first variant wins and drops what its `unset` names.
    expect(policyFactsOf(share, world, { id: 7, to: "" })).toEqual({ verb: "unshare", resource: "doc:7:ada", expectedEffect: "share:new" });
    expect(policyFactsOf(share, env({}), { to: "x@y.z" }).resource).toBe("doc::");
  });

  it("are validated: an unknown key, a bad side-effect class or a pointer that is not one is CONFIG_INVALID naming the field", () => {
    const fieldOf = (value: unknown) => {
      try {
        parseToolDeclarations(value, "decl.json");
      } catch (error) {
        expect(error).toBeInstanceOf(YokeError);
        return (error as YokeError).details;
      }
      throw new Error("accepted");
    };
    expect(fieldOf({ version: 1, tools: { a: { sideEffect: "maybe" } } })).toMatchObject({ file: "decl.json", field: "tools.a.sideEffect" });
    expect(fieldOf({ version: 1, tools: { a: { sideEffect: "none", trusted: [] } } })).toMatchObject({ field: "tools.a" });
    expect(fieldOf({ version: 1, tools: { a: { sideEffect: "none", facts: { destinations: [{ pointer: "to", role: "email" }] } } } })).toMatchObject({
      field: "tools.a.facts.destinations[0].pointer",
    });
    expect(fieldOf({ version: 2, tools: {} })).toMatchObject({ field: "version" });
  });

  it("must declare exactly the suite's tools", () => {
    const suite = agentDojoSuite("banking");
    const declared = defaultDeclarationsFor(suite.tools);
    expect(() => checkDeclarations(suite, declared)).not.toThrow();
    const { send_money: _dropped, ...rest } = declared.tools;
    let details: unknown;
    try {
      checkDeclarations(suite, { version: 1, tools: { ...rest, wire_money: { sideEffect: "irreversible" } } }, "banking.tools.json");
    } catch (error) {
      details = (error as YokeError).details;
    }
    expect(details).toMatchObject({ file: "banking.tools.json", missing: ["send_money"], unknown: ["wire_money"] });
  });
});
