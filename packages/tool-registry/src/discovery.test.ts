// Discovery: typed filters (OR within a field, AND across), principal grants, and the frozen,
// digested set a turn is offered.
import { defineTool, type ReadmissionRule, type SideEffectClass, type ToolDrift } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createToolRegistry } from "./registry.js";

const tool = (name: string, sideEffect: SideEffectClass, owner?: string) =>
  defineTool({ name, description: `${name}.`, input: z.object({}), sideEffect, ...(owner === undefined ? {} : { owner }), execute: async () => name });

function fleet(options: Parameters<typeof createToolRegistry>[0] = {}) {
  const registry = createToolRegistry(options);
  registry.register(tool("read", "none", "files"), { capabilities: ["fs.read"] });
  registry.register(tool("write", "idempotent", "files"), { capabilities: ["fs.write"] });
  registry.register(tool("pay", "irreversible", "payments"), { capabilities: ["payments.write"], trustDomain: "acme" });
  registry.register(tool("search", "none"), { capabilities: ["web", "fs.read"], trustDomain: "third-party" });
  return registry;
}
const names = (offered: { revisions: readonly { name: string }[] }) => offered.revisions.map((revision) => revision.name);

describe("discovery", () => {
  it("offers the whole snapshot when nothing filters it", () => {
    const registry = fleet();
    expect(names(registry.discover(registry.snapshot(), { principal: "p", task: "t" }))).toEqual(["pay", "read", "search", "write"]);
  });

  it.for([
    [{ capabilities: ["fs.read"] }, ["read", "search"]],
    [{ capabilities: ["fs.read", "fs.write"] }, ["read", "search", "write"]],
    [{ owners: ["files"] }, ["read", "write"]],
    [{ trustDomains: ["local", "acme"] }, ["pay", "read", "write"]],
    [{ sideEffects: ["none"] }, ["read", "search"]],
    [{ names: ["pay", "nope"] }, ["pay"]],
    [{ capabilities: ["fs.read"], owners: ["files"] }, ["read"]],
    [{ capabilities: ["fs.read"], trustDomains: ["third-party"], sideEffects: ["none"] }, ["search"]],
    [{ capabilities: [] }, []],
  ] as const)("filter %j offers %j (OR within a field, AND across)", ([filter, expected]) => {
    const registry = fleet();
    expect(names(registry.discover(registry.snapshot(), { principal: "p", task: "t", filter }))).toEqual(expected);
  });

  it("filters by who asks: a principal's grant, the '*' grant for the rest, nothing without either", () => {
    const registry = fleet({ grants: { alice: { owners: ["payments"] }, "*": { sideEffects: ["none"] } } });
    const snapshot = registry.snapshot();
    expect(names(registry.discover(snapshot, { principal: "alice", task: "t" }))).toEqual(["pay"]);
    expect(names(registry.discover(snapshot, { principal: "bob", task: "t" }))).toEqual(["read", "search"]);
    // The request's own filter narrows a grant, never widens it.
    expect(names(registry.discover(snapshot, { principal: "alice", task: "t", filter: { names: ["read"] } }))).toEqual([]);
    const strict = fleet({ grants: { alice: { names: ["read"] } } });
    expect(names(strict.discover(strict.snapshot(), { principal: "mallory", task: "t" }))).toEqual([]);
  });

  it("filters by task through discoveryFilter", () => {
    const registry = fleet({ discoveryFilter: ({ task }) => (task.startsWith("read-only:") ? { sideEffects: ["none"] } : undefined) });
    const snapshot = registry.snapshot();
    expect(names(registry.discover(snapshot, { principal: "p", task: "read-only: summarize" }))).toEqual(["read", "search"]);
    expect(names(registry.discover(snapshot, { principal: "p", task: "pay the bill" }))).toHaveLength(4);
  });

  it("freezes the offered set and digests it over its [name, digest] pairs", () => {
    const registry = fleet();
    const snapshot = registry.snapshot();
    const offered = registry.discover(snapshot, { principal: "p", task: "t", filter: { owners: ["files"] } });
    expect(Object.isFrozen(offered)).toBe(true);
    expect(Object.isFrozen(offered.revisions)).toBe(true);
    const again = registry.discover(snapshot, { principal: "q", task: "other", filter: { names: ["write", "read"] } });
    expect(again.digest).toBe(offered.digest);
    expect(registry.discover(snapshot, { principal: "p", task: "t" }).digest).toBe(snapshot.digest);
    expect(offered.digest).not.toBe(snapshot.digest);
  });

  it("offers from the snapshot it is given, not the live registry: a tool registered later is not offered to an old snapshot", () => {
    const registry = fleet();
    const snapshot = registry.snapshot();
    registry.register(tool("late", "none"));
    expect(names(registry.discover(snapshot, { principal: "p", task: "t" }))).not.toContain("late");
  });
});

describe("re-admission rules", () => {
  const drift = (changes: ToolDrift["changes"], toolName = "search"): ToolDrift => ({ toolName, pinned: "a".repeat(64), offered: "b".repeat(64), changes });
  const rules: ReadmissionRule[] = [
    { id: "docs-from-acme", changes: ["description"], origin: { kind: "mcp-http", url: "https://acme.example/mcp" } },
    { id: "docs-and-hints-third-party", changes: ["description", "hints"], trustDomains: ["third-party"] },
    { id: "search-schema", changes: ["input_schema"], tools: ["search"] },
  ];

  it("admits nothing by default", () => {
    const registry = fleet();
    const offered = registry.snapshot().revisions[0]!;
    expect(registry.readmissionRule(drift(["description"]), offered)).toBeUndefined();
  });

  it("picks the first rule whose changes hold every change and whose matchers match", () => {
    const registry = fleet({ readmission: rules });
    const search = registry.live("search")!;
    const acme = { ...search, origin: { kind: "mcp-http", url: "https://acme.example/mcp" } as const, trustDomain: "acme" };
    expect(registry.readmissionRule(drift(["description"]), acme)?.id).toBe("docs-from-acme");
    expect(registry.readmissionRule(drift(["description"]), search)?.id).toBe("docs-and-hints-third-party");
    expect(registry.readmissionRule(drift(["description", "hints"]), search)?.id).toBe("docs-and-hints-third-party");
    // A contract change is in no rule; a description change from another domain and origin matches none.
    expect(registry.readmissionRule(drift(["description", "contract"]), search)).toBeUndefined();
    expect(registry.readmissionRule(drift(["description"]), registry.live("read")!)).toBeUndefined();
    // Tool matchers name the pinned tool.
    expect(registry.readmissionRule(drift(["input_schema"]), search)?.id).toBe("search-schema");
    expect(registry.readmissionRule(drift(["input_schema"], "read"), registry.live("read")!)).toBeUndefined();
  });

  it("matches an origin's command for mcp-stdio and never a URL rule against another kind", () => {
    const registry = fleet({ readmission: [{ id: "npx-docs", changes: ["description"], origin: { kind: "mcp-stdio", command: "npx" } }] });
    const search = registry.live("search")!;
    const stdio = { ...search, origin: { kind: "mcp-stdio" as const, command: "npx", args: [], env: [] } };
    const other = { ...search, origin: { kind: "mcp-stdio" as const, command: "node", args: [], env: [] } };
    expect(registry.readmissionRule(drift(["description"]), stdio)?.id).toBe("npx-docs");
    expect(registry.readmissionRule(drift(["description"]), other)).toBeUndefined();
    expect(registry.readmissionRule(drift(["description"]), search)).toBeUndefined();
  });
});
