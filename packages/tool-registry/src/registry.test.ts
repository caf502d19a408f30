// The registry's core: registration by origin, snapshots, resolution of pinned revisions,
// drift of local re-registrations, lifecycle and discovery.
import { YokeError, steppingClock } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { readTool, writeTool } from "./__fixtures__/tools.js";
import { recordOf } from "./digests.js";
import { createToolRegistry, verifyRevisionRecord } from "./registry.js";

describe("registration", () => {
  it("gives the same definition registered twice the same revision", () => {
    const registry = createToolRegistry();
    const first = registry.register(readTool());
    const second = registry.register(readTool());
    expect(second).toBe(first);
    expect(first.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(registry.compatibilityEvents()).toEqual([]);
  });

  it("records origin, trust domain and sorted unique capabilities", () => {
    const registry = createToolRegistry({ source: "app" });
    const revision = registry.register(readTool(), { trustDomain: "acme", capabilities: ["fs.read", "a.b", "fs.read"] });
    expect(revision.origin).toEqual({ kind: "local", source: "app" });
    expect(revision.trustDomain).toBe("acme");
    expect(revision.capabilities).toEqual(["a.b", "fs.read"]);
    expect(verifyRevisionRecord(revision)).toBe(true);
  });

  it("refuses a name held by another origin (TOOL_REGISTRATION_CONFLICT)", () => {
    const registry = createToolRegistry();
    registry.register(readTool(), { source: "one" });
    expect(() => registry.register(readTool({ description: "other" }), { source: "two" })).toThrow(
      expect.objectContaining({ code: "TOOL_REGISTRATION_CONFLICT" }),
    );
  });

  it("records a drift when a changed local tool is registered under the same name", () => {
    const registry = createToolRegistry();
    const old = registry.register(readTool());
    const changed = registry.register(readTool({ description: "Read a file, faster." }));
    expect(registry.compatibilityEvents()).toEqual([{ toolName: "read", pinned: old.digest, offered: changed.digest, changes: ["description"] }]);
  });
});

describe("snapshots and resolution", () => {
  it("snapshots the active revisions sorted by name, without their declarations", () => {
    const registry = createToolRegistry({ tools: [writeTool(), readTool()] });
    const snapshot = registry.snapshot();
    expect(snapshot.revisions.map((revision) => revision.name)).toEqual(["read", "write"]);
    expect(snapshot.revisions[0]).not.toHaveProperty("declaration");
    expect(JSON.parse(JSON.stringify(snapshot))).toEqual(snapshot);
    expect(createToolRegistry({ tools: [readTool(), writeTool()] }).snapshot().digest).toBe(snapshot.digest);
  });

  it("resolves a pinned revision to the live one, and to a drift once it changed", async () => {
    const registry = createToolRegistry({ tools: [readTool()] });
    const pinned = registry.snapshot().revisions[0]!;
    const resolved = await registry.resolve(pinned);
    expect(resolved.status).toBe("callable");
    const changed = registry.register(readTool({ timeoutMs: 5 }));
    expect(await registry.resolve(pinned)).toEqual({
      status: "drifted",
      drift: { toolName: "read", pinned: pinned.digest, offered: changed.digest, changes: ["contract"] },
      offered: changed,
    });
    // Back to the pinned definition: callable again, the revision kept from the first registration.
    registry.register(readTool());
    expect(await registry.resolve(pinned)).toMatchObject({ status: "callable" });
  });

  it("says unavailable for a revision no source holds (a resumed process that never registered it)", async () => {
    const pinned = createToolRegistry({ tools: [readTool()] }).snapshot().revisions[0]!;
    expect(await createToolRegistry().resolve(pinned)).toMatchObject({ status: "unavailable" });
  });
});

describe("lifecycle", () => {
  it("keeps a deprecated tool out of new snapshots but callable by a pinned run; a withdrawn one resolves withdrawn", async () => {
    const registry = createToolRegistry({ tools: [readTool(), writeTool()] });
    const old = registry.snapshot();
    registry.setLifecycle("read", "deprecated", "use read2");
    expect(registry.snapshot().revisions.map((revision) => revision.name)).toEqual(["write"]);
    expect(await registry.resolve(old.revisions[0]!)).toMatchObject({ status: "callable" });
    expect(registry.discover(old, { principal: "p", task: "t" }).revisions.map((revision) => revision.name)).toEqual(["read", "write"]);
    registry.setLifecycle("read", "withdrawn", "leaks secrets");
    expect(await registry.resolve(old.revisions[0]!)).toEqual({ status: "withdrawn", reason: "leaks secrets" });
    expect(registry.discover(old, { principal: "p", task: "t" }).revisions.map((revision) => revision.name)).toEqual(["write"]);
    expect(() => registry.setLifecycle("nope", "withdrawn")).toThrow(YokeError);
  });
});

describe("inspection", () => {
  it("stamps lifecycle changes with the registry's clock, and strips declarations with recordOf", () => {
    const clock = steppingClock(1_000, 5);
    const registry = createToolRegistry({ tools: [readTool()], clock });
    expect(registry.lifecycleOf("read")).toEqual({ lifecycle: "active" });
    registry.setLifecycle("read", "deprecated", "old");
    expect(registry.lifecycleOf("read")).toEqual({ lifecycle: "deprecated", reason: "old", since: 1_000 });
    const record = recordOf(registry.live("read")!);
    expect(record).not.toHaveProperty("declaration");
    expect(JSON.parse(JSON.stringify(record))).toEqual(record);
    expect(verifyRevisionRecord(record)).toBe(true);
    expect(verifyRevisionRecord({ ...record, spec: { ...record.spec, description: "edited after pinning" } })).toBe(false);
    expect(verifyRevisionRecord({ ...record, contract: { ...record.contract, sideEffect: "irreversible" } })).toBe(false);
  });
});
