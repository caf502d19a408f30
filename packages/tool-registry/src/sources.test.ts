// Remote sources: registration of what a source lists, the contract its registering code
// declares, input validation before the source is called, and drift on list_changed.
import { YokeError } from "@yoke/protocol";
import { createStaticToolSource } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { callContext, listed, readTool } from "./__fixtures__/tools.js";
import { createToolRegistry } from "./registry.js";

const origin = { kind: "mcp-http", url: "http://127.0.0.1:9/mcp" } as const;

describe("remote sources", () => {
  it("registers what a source lists, with the origin of the source and the declared contract", async () => {
    const source = createStaticToolSource({
      origin,
      tools: [listed("search"), listed("delete", "Delete things.", { hints: { destructive: true, readOnly: false } })],
    });
    const registry = createToolRegistry();
    const revisions = await registry.addSource(source, {
      trustDomain: "third-party",
      capabilities: ["search"],
      tools: { search: { sideEffect: "none", reconcile: async () => ({ status: "not_applied" }), capabilities: ["web"] } },
    });
    const [search, remove] = revisions;
    expect(search?.origin).toEqual(origin);
    expect(search?.contract).toMatchObject({ sideEffect: "none", reconciler: true });
    expect(search?.capabilities).toEqual(["search", "web"]);
    // Undeclared: irreversible with no reconciler, whatever its hints say; the hints are kept.
    expect(remove?.contract).toMatchObject({ sideEffect: "irreversible", reconciler: false });
    expect(remove?.hints).toEqual({ destructive: true, readOnly: false });
    expect(registry.snapshot().revisions.map((revision) => revision.name)).toEqual(["delete", "search"]);
  });

  it("calls the source, and refuses input the listed schema rejects before calling it (TOOL_INPUT_INVALID)", async () => {
    const source = createStaticToolSource({ origin, tools: [listed("search")], handler: (_name, input) => `found ${JSON.stringify(input)}` });
    const registry = createToolRegistry();
    const [search] = await registry.addSource(source, { trustDomain: "third-party" });
    expect(await search!.declaration.execute({ q: "cats" }, callContext())).toBe('found {"q":"cats"}');
    const checked = await search!.declaration.input["~standard"].validate({ q: 3 });
    expect(checked.issues?.length).toBeGreaterThan(0);
    await expect(search!.declaration.execute({ q: 3 }, callContext())).rejects.toMatchObject({ code: "TOOL_INPUT_INVALID" });
    expect(source.calls).toEqual([{ name: "search", input: { q: "cats" } }]);
  });

  it("propagates the typed error of a source that cannot start", async () => {
    const source = createStaticToolSource({ origin, tools: [], connectError: new YokeError("TOOL_SOURCE_UNAVAILABLE", "spawn failed") });
    await expect(createToolRegistry().addSource(source, { trustDomain: "x" })).rejects.toMatchObject({ code: "TOOL_SOURCE_UNAVAILABLE" });
    expect(source.closed).toBe(true);
  });

  it("re-lists on list_changed, and a resolve right after the change sees the drift", async () => {
    const source = createStaticToolSource({ origin, tools: [listed("search"), listed("fetch")] });
    const registry = createToolRegistry();
    await registry.addSource(source, { trustDomain: "third-party" });
    const pinned = registry.snapshot();
    const [fetchTool, search] = pinned.revisions;
    source.setTools([listed("search", "Search things, better."), listed("fetch")]);
    const resolution = await registry.resolve(search!);
    expect(resolution).toMatchObject({ status: "drifted", drift: { toolName: "search", pinned: search!.digest, changes: ["description"] } });
    expect(await registry.resolve(fetchTool!)).toMatchObject({ status: "callable" });
    expect(registry.compatibilityEvents()).toHaveLength(1);
  });
});

describe("remote output schemas", () => {
  it("validates a structured result against the listed output schema, and digests that schema", async () => {
    const outputSchema = { type: "object", properties: { hits: { type: "integer" } }, required: ["hits"] };
    const source = createStaticToolSource({ origin, tools: [listed("count", "Count.", { outputSchema })] });
    const [count] = await createToolRegistry().addSource(source, { trustDomain: "third-party" });
    expect(count!.outputSchema).toEqual(outputSchema);
    const output = count!.declaration.output!;
    expect((await output["~standard"].validate({ hits: 3 })).issues).toBeUndefined();
    expect((await output["~standard"].validate({ hits: "many" })).issues?.length).toBeGreaterThan(0);
  });
});

describe("a change announced during the first listing", () => {
  it("is re-listed once the source is registered, so a resolve right after addSource sees the drift", async () => {
    const source = createStaticToolSource({ origin, tools: [listed("search")] });
    const list = source.list.bind(source);
    let first = true;
    // The server changes its list (and says so) while the registry's first tools/list is in flight.
    source.list = async (signal) => {
      const listing = await list(signal);
      if (first) {
        first = false;
        source.setTools([listed("search", "Changed while listing.")]);
      }
      return listing;
    };
    const registry = createToolRegistry();
    const [search] = await registry.addSource(source, { trustDomain: "third-party" });
    expect(search?.spec.description).toBe("search things.");
    expect(await registry.resolve(search!)).toMatchObject({ status: "drifted", drift: { changes: ["description"] } });
  });
});

describe("a source slow to re-list", () => {
  it("holds up the resolution of its own tools only", async () => {
    const source = createStaticToolSource({ origin, tools: [listed("search")] });
    const registry = createToolRegistry({ tools: [readTool()] });
    await registry.addSource(source, { trustDomain: "third-party" });
    const snapshot = registry.snapshot();
    let release: () => void = () => undefined;
    const list = source.list.bind(source);
    source.list = async (signal) => {
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return list(signal);
    };
    source.setTools([listed("search", "Changed.")]);
    const local = snapshot.revisions.find((revision) => revision.name === "read")!;
    expect(await registry.resolve(local)).toMatchObject({ status: "callable" });
    const remote = registry.resolve(snapshot.revisions.find((revision) => revision.name === "search")!);
    release();
    expect(await remote).toMatchObject({ status: "drifted" });
  });
});
