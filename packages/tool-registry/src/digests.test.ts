// Properties of the digests: a change to a model-facing field changes exactly modelDigest (and
// so digest); a contract change exactly contractDigest (and digest); where the tool comes from
// only digest; and equal definitions built in different orders give equal digests.
import { canonicalJson, defineTool, type JsonValue } from "@yoke/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { contractPartArbitrary, declarationOf, modelPartArbitrary, reordered, type ContractPart, type ModelPart } from "./__fixtures__/arbitraries.js";
import { contractOf, revisionOf, schemaForDigest } from "./digests.js";
import { verifyRevisionRecord } from "./registry.js";

type JsonObject = { [key: string]: JsonValue };
const differ = (a: unknown, b: unknown) => canonicalJson(a ?? null) !== canonicalJson(b ?? null);

describe("digests", () => {
  it("a change to any model-facing field changes modelDigest and digest, never contractDigest", () => {
    fc.assert(
      fc.property(modelPartArbitrary, modelPartArbitrary, contractPartArbitrary, fc.nat(3), (model, other, contract, field) => {
        const keys = ["name", "description", "inputSchema", "outputSchema"] as const;
        const key = keys[field]!;
        const changed: ModelPart = { ...model, [key]: other[key] };
        const digested = (part: ModelPart) =>
          key === "inputSchema" || key === "outputSchema" ? (part[key] === undefined ? null : schemaForDigest(part[key])) : part[key];
        // `required` is a set: the same names in another order are the same schema.
        fc.pre(differ(digested(model), digested(changed)));
        const before = revisionOf(declarationOf(model, contract));
        const after = revisionOf(declarationOf(changed, contract));
        expect(after.modelDigest).not.toBe(before.modelDigest);
        expect(after.digest).not.toBe(before.digest);
        expect(after.contractDigest).toBe(before.contractDigest);
      }),
    );
  });

  it("a change to any contract field changes contractDigest and digest, never modelDigest", () => {
    fc.assert(
      fc.property(modelPartArbitrary, contractPartArbitrary, contractPartArbitrary, fc.nat(9), (model, contract, other, field) => {
        const keys = Object.keys(contract) as (keyof ContractPart)[];
        const key = keys[field % keys.length]!;
        const changed = { ...contract, [key]: other[key] } as ContractPart;
        const before = revisionOf(declarationOf(model, contract));
        const after = revisionOf(declarationOf(model, changed));
        // A default written out (maxAttempts 3, internal, egress any) is the same contract.
        fc.pre(differ(before.contract, after.contract));
        expect(after.contractDigest).not.toBe(before.contractDigest);
        expect(after.digest).not.toBe(before.digest);
        expect(after.modelDigest).toBe(before.modelDigest);
      }),
    );
  });

  it("a change of origin, trust domain, capability classes or hints changes digest only", () => {
    fc.assert(
      fc.property(
        modelPartArbitrary,
        contractPartArbitrary,
        fc.constantFrom("origin", "trustDomain", "capabilities", "hints"),
        fc.string({ minLength: 1, maxLength: 8 }),
        (model, contract, field, value) => {
          const tool = declarationOf(model, contract);
          const base = { origin: { kind: "local", source: "a" }, trustDomain: "local", capabilities: ["fs.read"], hints: { readOnly: true } } as const;
          const changed = {
            origin: { ...base, origin: { kind: "mcp-http" as const, url: `http://127.0.0.1/${value}` } },
            trustDomain: { ...base, trustDomain: `${value}-domain` },
            capabilities: { ...base, capabilities: ["fs.read", `${value}.x`] },
            hints: { ...base, hints: { readOnly: false, title: value } },
          }[field];
          const before = revisionOf(tool, base);
          const after = revisionOf(tool, changed);
          expect(after.digest).not.toBe(before.digest);
          expect(after.modelDigest).toBe(before.modelDigest);
          expect(after.contractDigest).toBe(before.contractDigest);
        },
      ),
    );
  });

  it("equal definitions built in different key and insertion orders give equal digests", () => {
    fc.assert(
      fc.property(
        modelPartArbitrary,
        contractPartArbitrary,
        fc.array(fc.string({ minLength: 1, maxLength: 6 }), { maxLength: 5 }),
        fc.integer({ min: 1, max: 2 ** 30 }),
        (model, contract, capabilities, seed) => {
          const shuffled: ModelPart = {
            ...model,
            inputSchema: reordered(model.inputSchema, seed) as JsonObject,
            outputSchema: model.outputSchema === undefined ? undefined : (reordered(model.outputSchema, seed + 7) as JsonObject),
          };
          // The contract's options in another insertion order, capability classes reversed and repeated.
          const contractShuffled = Object.fromEntries(Object.entries(contract).reverse()) as unknown as ContractPart;
          const one = revisionOf(declarationOf(model, contract), { capabilities, trustDomain: "t" });
          const two = revisionOf(declarationOf(shuffled, contractShuffled), {
            capabilities: [...capabilities].reverse().concat(capabilities),
            trustDomain: "t",
          });
          expect(two.digest).toBe(one.digest);
          expect(two.modelDigest).toBe(one.modelDigest);
          expect(two.contractDigest).toBe(one.contractDigest);
          expect(verifyRevisionRecord(one)).toBe(true);
        },
      ),
    );
  });

  it("digests a zod tool through zod 4's own JSON Schema, whatever order its shape was written in", () => {
    const one = defineTool({ name: "t", description: "d", input: z.object({ a: z.string(), b: z.number() }), sideEffect: "none", execute: async () => "" });
    const two = defineTool({ name: "t", description: "d", input: z.object({ b: z.number(), a: z.string() }), sideEffect: "none", execute: async () => "" });
    expect(revisionOf(two).modelDigest).toBe(revisionOf(one).modelDigest);
    expect(revisionOf(one).spec.inputSchema).toEqual(z.toJSONSchema(z.object({ a: z.string(), b: z.number() }), { io: "input" }));
    const withOutput = defineTool({
      name: "t",
      description: "d",
      input: z.object({ a: z.string(), b: z.number() }),
      output: z.object({ n: z.number() }),
      sideEffect: "none",
      execute: async () => "",
    });
    expect(revisionOf(withOutput).outputSchema).toMatchObject({ type: "object", properties: { n: { type: "number" } } });
    expect(revisionOf(withOutput).modelDigest).not.toBe(revisionOf(one).modelDigest);
  });

  it("writes the contract's defaults out: maxAttempts 3, internal data, any egress, no owner", () => {
    const tool = defineTool({ name: "t", description: "d", input: z.object({}), sideEffect: "reversible", execute: async () => "" });
    expect(contractOf(tool)).toEqual({
      sideEffect: "reversible",
      access: "default",
      timeoutMs: 60_000,
      outputBudget: null,
      maxAttempts: 3,
      reconciler: false,
      compensator: false,
      dataClassification: "internal",
      network: { egress: "any" },
      owner: null,
    });
  });

  it("is deterministic: the same definition gives the same bytes in a fresh registry", () => {
    const tool = defineTool({ name: "t", description: "d", input: z.object({ a: z.string() }), sideEffect: "none", execute: async () => "" });
    expect(revisionOf(tool)).toEqual(revisionOf(tool));
    // Pinned: a digest change here is a change of what every journal pinned.
    const { declaration: _declaration, ...record } = revisionOf(tool);
    expect(record.modelDigest).toMatchInlineSnapshot(`"dc321c44adbd6c6762fa8f59727263e21a9afa4d8657775fc4a6997b498383b6"`);
    expect(record.contractDigest).toMatchInlineSnapshot(`"e9a89b101ecae0d9875e3c2203885aae22893b3e39f0846ac102d3b2b2459fc1"`);
    expect(record.digest).toMatchInlineSnapshot(`"6663141673572a48c116975b85489783fbf56bae1a68c61e819290766e568fb8"`);
  });
});
