import {
  ToolRevisionRecordSchema,
  ToolSnapshotSchema,
  YokeError,
  canonicalJson,
  defineTool,
  jsonSchema,
  type ReadmissionRule,
  type ToolRegistryV1,
  type ToolRevisionRecord,
} from "@yoke/protocol";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { CONTRACT_ORIGIN, contractCallContext, contractListing, contractTool } from "./tool-registry-fixtures.js";
import { registryModelTest } from "./tool-registry-model.js";
import { createStaticToolSource } from "./tool-registry-source.js";

/** What the contract asks of a fresh registry. */
export interface RegistryContractSetup {
  /** The declared re-admission rules the registry must apply, in order. */
  readonly readmission: readonly ReadmissionRule[];
}

/** Makes a fresh, empty registry (no tools, no sources) with the given rules. */
export type RegistryContractFactory = (setup: RegistryContractSetup) => ToolRegistryV1 | Promise<ToolRegistryV1>;

export interface RegistryContractOptions {
  /** Iterations of each fast-check property and of the model-based test. Default 30. */
  readonly numRuns?: number;
}

/** One test of the registry contract: its title and its body. */
export interface RegistryContractTest {
  readonly title: string;
  readonly run: () => Promise<void>;
}

/** The registry contract as data, for a test file that registers the tests itself. */
export interface RegistryContractTests {
  readonly tests: readonly RegistryContractTest[];
  /** Closes every registry the tests opened so far: register it with `afterEach`. */
  readonly cleanup: () => Promise<void>;
}

const HEX64 = /^[0-9a-f]{64}$/;
const names = (set: { readonly revisions: readonly { readonly name: string }[] }) => set.revisions.map((revision) => revision.name);
const byName = (set: { readonly revisions: readonly ToolRevisionRecord[] }, name: string): ToolRevisionRecord => {
  const found = set.revisions.find((revision) => revision.name === name);
  if (!found) throw new YokeError("CONFIG_INVALID", `the registry contract expected ${name} in the set`);
  return found;
};

/**
 * The tests every `ToolRegistryV1` passes, as a list: registration and digests, snapshots,
 * discovery filters, lifecycle, resolution of pinned revisions and drift of each kind,
 * remote sources (contract declared by the registering code, input validated before the
 * source is called, re-listing on list_changed), re-admission rules, and a model-based test
 * of random registrations, listings, lifecycle changes, pins and resolutions. Register them
 * with a literal `describe` and `it.for`, so `vitest list` finds them.
 *
 * @example
 * ```ts
 * import { registryContractTests } from "@yoke/testkit/contracts";
 * const contract = registryContractTests(({ readmission }) => createMyRegistry({ readmission }));
 * describe("ToolRegistryV1 contract: my registry", () => {
 *   afterEach(contract.cleanup);
 *   it.for(contract.tests)("$title", (test) => test.run());
 * });
 * ```
 */
export function registryContractTests(makeRegistry: RegistryContractFactory, options: RegistryContractOptions = {}): RegistryContractTests {
  const numRuns = options.numRuns ?? 30;
  const open: ToolRegistryV1[] = [];
  const fresh = async (readmission: readonly ReadmissionRule[] = []) => {
    const registry = await makeRegistry({ readmission });
    open.push(registry);
    return registry;
  };
  const cleanup = async () => {
    for (const registry of open.splice(0)) await registry.close();
  };
  const tests: RegistryContractTest[] = [];
  const test = (title: string, run: () => Promise<void>) => void tests.push({ title, run });

  test("declares specification v1 and starts empty", async () => {
    const registry = await fresh();
    expect(registry.specificationVersion).toBe("v1");
    expect(registry.snapshot().revisions).toEqual([]);
    expect(registry.compatibilityEvents()).toEqual([]);
  });

  test("registers a local tool as a revision with three SHA-256 digests and its record", async () => {
    const registry = await fresh();
    const revision = registry.register(contractTool("read"), { trustDomain: "acme", capabilities: ["fs.read", "a.z", "fs.read"] });
    for (const digest of [revision.digest, revision.modelDigest, revision.contractDigest]) expect(digest).toMatch(HEX64);
    expect(revision.origin.kind).toBe("local");
    expect(revision.trustDomain).toBe("acme");
    expect(revision.capabilities).toEqual(["a.z", "fs.read"]);
    expect(revision.contract).toMatchObject({ sideEffect: "none", maxAttempts: 3, dataClassification: "internal", network: { egress: "any" }, owner: null });
    expect(typeof revision.declaration.execute).toBe("function");
    expect(ToolRevisionRecordSchema.safeParse(revision).success).toBe(true);
    expect(registry.register(contractTool("plain")).trustDomain).toBe("local");
  });

  test("gives the same definition registered twice the same revision, and records no drift", async () => {
    const registry = await fresh();
    const first = registry.register(contractTool("read"));
    const second = registry.register(contractTool("read"));
    expect(second.digest).toBe(first.digest);
    expect(registry.compatibilityEvents()).toEqual([]);
    expect(registry.snapshot().revisions).toHaveLength(1);
  });

  test("changes exactly the digest that covers a change: description → model, contract → contract", async () => {
    const one = (await fresh()).register(contractTool("read"));
    const described = (await fresh()).register(contractTool("read", { variant: 1 }));
    const slower = (await fresh()).register(contractTool("read", { timeoutMs: 1234 }));
    expect(described.modelDigest).not.toBe(one.modelDigest);
    expect(described.contractDigest).toBe(one.contractDigest);
    expect(described.digest).not.toBe(one.digest);
    expect(slower.contractDigest).not.toBe(one.contractDigest);
    expect(slower.modelDigest).toBe(one.modelDigest);
    expect(slower.digest).not.toBe(one.digest);
  });

  test("digests equal definitions equally whatever the key order of their schemas and the order of capabilities", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.stringMatching(/^[a-z]{1,6}$/), { minLength: 1, maxLength: 5 }),
        fc.array(fc.stringMatching(/^[a-z.]{1,6}$/), { maxLength: 4 }),
        async (keys, capabilities) => {
          const properties = Object.fromEntries(keys.map((key) => [key, { type: "string", description: key }]));
          const reversed = Object.fromEntries(keys.toReversed().map((key) => [key, { description: key, type: "string" }]));
          const tool = (schema: Record<string, unknown>) =>
            defineTool({ name: "shaped", description: "d", input: jsonSchema(schema), sideEffect: "none", execute: async () => "" });
          const one = await fresh();
          const two = await fresh();
          const a = one.register(tool({ type: "object", properties }), { capabilities });
          const b = two.register(tool({ properties: reversed, type: "object" }), { capabilities: [...capabilities].reverse().concat(capabilities) });
          expect(b.digest).toBe(a.digest);
          expect(b.modelDigest).toBe(a.modelDigest);
        },
      ),
      { numRuns },
    );
  });

  test("refuses a name another origin holds with TOOL_REGISTRATION_CONFLICT", async () => {
    const registry = await fresh();
    registry.register(contractTool("read"), { source: "module-a" });
    expect(() => registry.register(contractTool("read", { variant: 2 }), { source: "module-b" })).toThrow(
      expect.objectContaining({ code: "TOOL_REGISTRATION_CONFLICT" }),
    );
    const source = createStaticToolSource({ origin: CONTRACT_ORIGIN, tools: [contractListing("read")] });
    await expect(registry.addSource(source, { trustDomain: "third-party" })).rejects.toMatchObject({ code: "TOOL_REGISTRATION_CONFLICT" });
  });

  test("snapshots the active revisions sorted by name, as records that survive JSON, with a deterministic digest", async () => {
    const registry = await fresh();
    registry.register(contractTool("write", { sideEffect: "idempotent" }));
    registry.register(contractTool("read"));
    const snapshot = registry.snapshot();
    expect(names(snapshot)).toEqual(["read", "write"]);
    expect(snapshot.digest).toMatch(HEX64);
    expect(ToolSnapshotSchema.parse(JSON.parse(JSON.stringify(snapshot)))).toEqual(JSON.parse(JSON.stringify(snapshot)));
    expect(canonicalJson(JSON.parse(JSON.stringify(snapshot)))).toBe(canonicalJson(snapshot));
    const other = await fresh();
    other.register(contractTool("read"));
    other.register(contractTool("write", { sideEffect: "idempotent" }));
    expect(other.snapshot().digest).toBe(snapshot.digest);
    other.register(contractTool("write", { sideEffect: "idempotent", variant: 1 }));
    expect(other.snapshot().digest).not.toBe(snapshot.digest);
  });

  test("discovers with typed filters: OR within a field, AND across fields", async () => {
    const registry = await fresh();
    registry.register(contractTool("read", { owner: "files" }), { capabilities: ["fs.read"] });
    registry.register(contractTool("write", { owner: "files", sideEffect: "idempotent" }), { capabilities: ["fs.write"] });
    registry.register(contractTool("pay", { owner: "payments", sideEffect: "irreversible" }), { capabilities: ["payments"], trustDomain: "acme" });
    const snapshot = registry.snapshot();
    const offer = (filter?: Parameters<ToolRegistryV1["discover"]>[1]["filter"]) =>
      names(registry.discover(snapshot, { principal: "user_1", task: "t", ...(filter === undefined ? {} : { filter }) }));
    expect(offer()).toEqual(["pay", "read", "write"]);
    expect(offer({ capabilities: ["fs.read", "fs.write"] })).toEqual(["read", "write"]);
    expect(offer({ owners: ["files"], sideEffects: ["idempotent", "irreversible"] })).toEqual(["write"]);
    expect(offer({ trustDomains: ["acme"] })).toEqual(["pay"]);
    expect(offer({ names: ["read", "pay"], capabilities: ["payments"] })).toEqual(["pay"]);
    const offered = registry.discover(snapshot, { principal: "user_1", task: "t", filter: { owners: ["files"] } });
    expect(offered.digest).toMatch(HEX64);
    expect(offered.digest).not.toBe(registry.discover(snapshot, { principal: "user_1", task: "t" }).digest);
    expect(registry.discover(snapshot, { principal: "user_1", task: "t" }).digest).toBe(snapshot.digest);
  });

  test("deprecated: out of new snapshots, still offered from old ones and callable by pinned runs; withdrawn: never offered, resolves withdrawn", async () => {
    const registry = await fresh();
    registry.register(contractTool("read"));
    registry.register(contractTool("write"));
    const old = registry.snapshot();
    registry.setLifecycle("read", "deprecated", "use write");
    expect(names(registry.snapshot())).toEqual(["write"]);
    expect(names(registry.discover(old, { principal: "p", task: "t" }))).toEqual(["read", "write"]);
    expect(await registry.resolve(byName(old, "read"))).toMatchObject({ status: "callable" });
    registry.setLifecycle("read", "withdrawn", "unsafe");
    expect(names(registry.discover(old, { principal: "p", task: "t" }))).toEqual(["write"]);
    expect(await registry.resolve(byName(old, "read"))).toMatchObject({ status: "withdrawn", reason: "unsafe" });
    registry.setLifecycle("read", "active");
    expect(names(registry.snapshot())).toEqual(["read", "write"]);
  });

  test("resolves a pinned revision: callable while live, drifted with exact changes once changed, unavailable when nothing holds it", async () => {
    const registry = await fresh();
    registry.register(contractTool("read"));
    const pinned = byName(registry.snapshot(), "read");
    const callable = await registry.resolve(pinned);
    expect(callable.status).toBe("callable");
    if (callable.status === "callable") expect(callable.revision.digest).toBe(pinned.digest);
    const changed = registry.register(contractTool("read", { variant: 1, timeoutMs: 999 }));
    const drifted = await registry.resolve(pinned);
    expect(drifted).toMatchObject({
      status: "drifted",
      drift: { toolName: "read", pinned: pinned.digest, offered: changed.digest, changes: ["description", "contract"] },
    });
    expect(registry.compatibilityEvents()).toEqual([
      { toolName: "read", pinned: pinned.digest, offered: changed.digest, changes: ["description", "contract"] },
    ]);
    expect(await (await fresh()).resolve(pinned)).toMatchObject({ status: "unavailable" });
  });

  test("registers a source's tools with its origin; an undeclared tool is irreversible with no reconciler whatever its hints", async () => {
    const registry = await fresh();
    const source = createStaticToolSource({
      origin: CONTRACT_ORIGIN,
      tools: [contractListing("search"), contractListing("erase", 0, { hints: { readOnly: true, idempotent: true } })],
    });
    const revisions = await registry.addSource(source, {
      trustDomain: "third-party",
      capabilities: ["web"],
      tools: { search: { sideEffect: "none", owner: "search-team", capabilities: ["search"] } },
    });
    expect(source.connected).toBe(true);
    const search = revisions.find((revision) => revision.name === "search");
    const erase = revisions.find((revision) => revision.name === "erase");
    expect(search).toMatchObject({
      origin: CONTRACT_ORIGIN,
      trustDomain: "third-party",
      capabilities: ["search", "web"],
      contract: { sideEffect: "none", owner: "search-team" },
    });
    expect(erase).toMatchObject({ contract: { sideEffect: "irreversible", reconciler: false }, hints: { readOnly: true, idempotent: true } });
    expect(names(registry.snapshot())).toEqual(["erase", "search"]);
  });

  test("calls the source through the revision's declaration, and refuses invalid input before the source is called", async () => {
    const registry = await fresh();
    const source = createStaticToolSource({
      origin: CONTRACT_ORIGIN,
      tools: [contractListing("search")],
      handler: (_name, input) => `hits for ${JSON.stringify(input)}`,
    });
    const [search] = await registry.addSource(source, { trustDomain: "third-party" });
    expect(await search!.declaration.execute({ q: "x" }, contractCallContext())).toBe('hits for {"q":"x"}');
    const checked = await search!.declaration.input["~standard"].validate({ q: 1 });
    expect(checked.issues?.length ?? 0).toBeGreaterThan(0);
    await expect(search!.declaration.execute({ nope: true }, contractCallContext())).rejects.toMatchObject({ code: "TOOL_INPUT_INVALID" });
    expect(source.calls).toEqual([{ name: "search", input: { q: "x" } }]);
  });

  test("rejects addSource with TOOL_SOURCE_UNAVAILABLE when the source cannot start", async () => {
    const registry = await fresh();
    const source = createStaticToolSource({
      origin: CONTRACT_ORIGIN,
      tools: [contractListing("search")],
      connectError: new YokeError("TOOL_SOURCE_UNAVAILABLE", "cannot spawn"),
    });
    await expect(registry.addSource(source, { trustDomain: "third-party" })).rejects.toMatchObject({ code: "TOOL_SOURCE_UNAVAILABLE" });
    expect(registry.snapshot().revisions).toEqual([]);
  });

  test("re-lists on list_changed: a resolve right after the change sees the drift; an unrelated tool stays callable", async () => {
    const registry = await fresh();
    const source = createStaticToolSource({
      origin: CONTRACT_ORIGIN,
      tools: [contractListing("search"), contractListing("fetch", 0, { description: "fetch" })],
    });
    await registry.addSource(source, { trustDomain: "third-party" });
    const snapshot = registry.snapshot();
    source.setTools([contractListing("search", 1), contractListing("fetch", 0, { description: "fetch" })]);
    expect(await registry.resolve(byName(snapshot, "search"))).toMatchObject({ status: "drifted", drift: { changes: ["description"] } });
    expect(await registry.resolve(byName(snapshot, "fetch"))).toMatchObject({ status: "callable" });
  });

  test("records removal, rename and addition as compatibility events, and refresh() returns what it found", async () => {
    const registry = await fresh();
    const source = createStaticToolSource({ origin: CONTRACT_ORIGIN, tools: [contractListing("a", 1), contractListing("b", 2)] });
    await registry.addSource(source, { trustDomain: "third-party" });
    const snapshot = registry.snapshot();
    source.setTools([contractListing("c", 1), contractListing("d", 3)], { notify: false });
    const found = await registry.refresh();
    const summary = found.map((drift) => ({ toolName: drift.toolName, changes: drift.changes, renamedTo: drift.renamedTo }));
    expect(summary).toEqual(
      expect.arrayContaining([
        { toolName: "a", changes: ["renamed"], renamedTo: "c" },
        { toolName: "b", changes: ["removed"], renamedTo: undefined },
        { toolName: "d", changes: ["added"], renamedTo: undefined },
      ]),
    );
    expect(found).toHaveLength(3);
    expect(found.find((drift) => drift.toolName === "b")).toMatchObject({ pinned: byName(snapshot, "b").digest, offered: null });
    expect(found.find((drift) => drift.toolName === "d")).toMatchObject({ pinned: null });
    expect(registry.compatibilityEvents()).toEqual(found);
    expect(await registry.resolve(byName(snapshot, "a"))).toMatchObject({ status: "drifted", drift: { changes: ["renamed"], renamedTo: "c" } });
    expect(await registry.resolve(byName(snapshot, "b"))).toMatchObject({ status: "drifted", drift: { changes: ["removed"], offered: null } });
  });

  test("re-admits a drift only by a declared rule: none by default, else the first whose changes and matchers all match", async () => {
    const none = await fresh();
    none.register(contractTool("read"));
    const pinned = byName(none.snapshot(), "read");
    none.register(contractTool("read", { variant: 1 }));
    const drifted = await none.resolve(pinned);
    if (drifted.status !== "drifted" || !drifted.offered) throw new YokeError("CONFIG_INVALID", "expected a drift with an offered revision");
    expect(none.readmissionRule(drifted.drift, drifted.offered)).toBeUndefined();
    const rules: ReadmissionRule[] = [
      { id: "remote-docs", changes: ["description"], origin: { kind: "mcp-http" } },
      { id: "other-tool", changes: ["description"], tools: ["write"] },
      { id: "local-docs", changes: ["description", "hints"], trustDomains: ["local"] },
    ];
    const ruled = await fresh(rules);
    expect(ruled.readmissionRule(drifted.drift, drifted.offered)?.id).toBe("local-docs");
    expect(ruled.readmissionRule({ ...drifted.drift, changes: ["description", "input_schema"] }, drifted.offered)).toBeUndefined();
  });

  test("closes the sources it connected", async () => {
    const registry = await makeRegistry({ readmission: [] });
    const source = createStaticToolSource({ origin: CONTRACT_ORIGIN, tools: [contractListing("search")] });
    await registry.addSource(source, { trustDomain: "third-party" });
    await registry.close();
    expect(source.closed).toBe(true);
  });

  test("agrees with a reference model over random registrations, listings, lifecycle changes, pins and resolutions", () => registryModelTest(fresh, numRuns));

  return { tests, cleanup };
}

/**
 * Registers the `ToolRegistryV1` contract as vitest tests under one `describe`.
 *
 * @example
 * ```ts
 * describeRegistryContract("my registry", ({ readmission }) => createMyRegistry({ readmission }));
 * ```
 */
export function describeRegistryContract(name: string, makeRegistry: RegistryContractFactory, options: RegistryContractOptions = {}): void {
  const contract = registryContractTests(makeRegistry, options);
  describe(`ToolRegistryV1 contract: ${name}`, () => {
    afterEach(contract.cleanup);
    for (const entry of contract.tests) it(entry.title, entry.run);
  });
}
