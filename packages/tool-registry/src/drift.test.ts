// Drift: each kind of change a source can make to a pinned tool, as the compatibility event
// a re-list records and as what `resolve` answers for the pinned revision.
import { YokeError, type SourceToolDefinition, type ToolChange, type ToolOrigin } from "@yoke/protocol";
import { createStaticToolSource } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { listed, readTool } from "./__fixtures__/tools.js";
import { createToolRegistry } from "./registry.js";

const origin: ToolOrigin = { kind: "mcp-stdio", command: "node", args: ["server.js"], env: ["TOKEN"] };

async function pinnedRegistry(tools: SourceToolDefinition[], declared = {}) {
  const source = createStaticToolSource({ origin, tools });
  const registry = createToolRegistry();
  await registry.addSource(source, { trustDomain: "third-party", tools: declared });
  return { source, registry, snapshot: registry.snapshot() };
}

const pinnedOf = (snapshot: { revisions: readonly { name: string }[] }, name: string) =>
  snapshot.revisions.find((revision) => revision.name === name)! as never;

describe("drift of a pinned remote tool", () => {
  const cases: { kind: ToolChange; change: SourceToolDefinition }[] = [
    { kind: "description", change: listed("search", "Search, now with ads.") },
    { kind: "input_schema", change: listed("search", "search things.", { inputSchema: { type: "object", properties: { q: { type: "number" } } } }) },
    { kind: "output_schema", change: listed("search", "search things.", { outputSchema: { type: "object", properties: { hits: { type: "array" } } } }) },
    { kind: "hints", change: listed("search", "search things.", { hints: { readOnly: true } }) },
  ];
  it.for(cases)("records a $kind change and refuses the pinned revision with exactly it", async ({ kind, change }) => {
    const { source, registry, snapshot } = await pinnedRegistry([listed("search"), listed("other")]);
    const pinned = pinnedOf(snapshot, "search") as { digest: string };
    source.setTools([change, listed("other")]);
    const resolution = await registry.resolve(pinnedOf(snapshot, "search"));
    expect(resolution).toMatchObject({ status: "drifted", drift: { toolName: "search", pinned: pinned.digest, changes: [kind] } });
    expect(registry.compatibilityEvents()).toEqual([expect.objectContaining({ toolName: "search", changes: [kind] })]);
    // An unrelated tool keeps working.
    expect(await registry.resolve(pinnedOf(snapshot, "other"))).toMatchObject({ status: "callable" });
  });

  it("reports several changes at once, in a fixed order", async () => {
    const { source, registry, snapshot } = await pinnedRegistry([listed("search")]);
    source.setTools([listed("search", "New.", { inputSchema: { type: "object" }, hints: { openWorld: true } })]);
    expect(await registry.resolve(pinnedOf(snapshot, "search"))).toMatchObject({ drift: { changes: ["description", "input_schema", "hints"] } });
  });

  it("records a contract change when the registering code declares another contract (a local tool)", async () => {
    const registry = createToolRegistry({ tools: [readTool()] });
    const snapshot = registry.snapshot();
    registry.register(readTool({ sideEffect: "idempotent" }));
    expect(await registry.resolve(pinnedOf(snapshot, "read"))).toMatchObject({ drift: { changes: ["contract"] } });
  });

  it("records an origin change when a tool is registered from another source after its own was re-registered", async () => {
    const registry = createToolRegistry({ tools: [readTool()] });
    const snapshot = registry.snapshot();
    registry.register(readTool(), { trustDomain: "acme" });
    expect(await registry.resolve(pinnedOf(snapshot, "read"))).toMatchObject({ drift: { changes: ["origin"] } });
  });

  it("records a removal: the pinned tool is no longer listed", async () => {
    const { source, registry, snapshot } = await pinnedRegistry([listed("search"), listed("other")]);
    source.setTools([listed("other")]);
    const resolution = await registry.resolve(pinnedOf(snapshot, "search"));
    expect(resolution).toMatchObject({ status: "drifted", drift: { toolName: "search", offered: null, changes: ["removed"] } });
    expect(registry.snapshot().revisions.map((revision) => revision.name)).toEqual(["other"]);
  });

  it("records a rename: the same body under another name", async () => {
    const { source, registry, snapshot } = await pinnedRegistry([listed("search", "Find things.")]);
    source.setTools([listed("find", "Find things.")]);
    const resolution = await registry.resolve(pinnedOf(snapshot, "search"));
    expect(resolution).toMatchObject({ status: "drifted", drift: { toolName: "search", changes: ["renamed"], renamedTo: "find" } });
    expect(registry.compatibilityEvents()).toEqual([
      {
        toolName: "search",
        pinned: (pinnedOf(snapshot, "search") as { digest: string }).digest,
        offered: registry.live("find")!.digest,
        changes: ["renamed"],
        renamedTo: "find",
      },
    ]);
  });

  it("records an addition: a tool the snapshot does not hold, which is not in the pinned snapshot", async () => {
    const { source, registry, snapshot } = await pinnedRegistry([listed("search")]);
    source.setTools([listed("search"), listed("delete")], { notify: false });
    const drifts = await registry.refresh();
    expect(drifts).toEqual([{ toolName: "delete", pinned: null, offered: registry.live("delete")!.digest, changes: ["added"] }]);
    expect(snapshot.revisions.map((revision) => revision.name)).toEqual(["search"]);
    expect(registry.snapshot().revisions.map((revision) => revision.name)).toEqual(["delete", "search"]);
  });

  it("sees a change made by a notification that arrived just before resolve (it awaits the pending re-list)", async () => {
    const { source, registry, snapshot } = await pinnedRegistry([listed("search")]);
    const before = source.listCount;
    source.setTools([listed("search", "Changed.")]);
    source.setTools([listed("search", "Changed twice.")]);
    const resolution = await registry.resolve(pinnedOf(snapshot, "search"));
    expect(source.listCount).toBe(before + 2);
    expect(resolution).toMatchObject({ status: "drifted", offered: { spec: { description: "Changed twice." } } });
  });

  it("does not see a change the source did not announce until refresh() re-lists it", async () => {
    const { source, registry, snapshot } = await pinnedRegistry([listed("search")]);
    source.setTools([listed("search", "Quietly changed.")], { notify: false });
    expect(await registry.resolve(pinnedOf(snapshot, "search"))).toMatchObject({ status: "callable" });
    expect(await registry.refresh()).toEqual([expect.objectContaining({ changes: ["description"] })]);
    expect(await registry.resolve(pinnedOf(snapshot, "search"))).toMatchObject({ status: "drifted" });
  });

  it("says unavailable, never callable, while a re-list of the tool's source fails", async () => {
    const { source, registry, snapshot } = await pinnedRegistry([listed("search")]);
    source.failListing(new YokeError("TOOL_SOURCE_UNAVAILABLE", "connection lost"));
    source.setTools([listed("search", "Changed.")]);
    expect(await registry.resolve(pinnedOf(snapshot, "search"))).toMatchObject({ status: "unavailable" });
    await expect(registry.refresh()).rejects.toMatchObject({ code: "TOOL_SOURCE_UNAVAILABLE" });
    source.failListing(undefined);
    await registry.refresh();
    expect(await registry.resolve(pinnedOf(snapshot, "search"))).toMatchObject({ status: "drifted" });
  });

  it("keeps a call admitted under the old revision on it: its declaration still calls the source by name", async () => {
    const { source, registry, snapshot } = await pinnedRegistry([listed("search")]);
    const resolution = await registry.resolve(pinnedOf(snapshot, "search"));
    if (resolution.status !== "callable") throw new Error("expected callable");
    source.setTools([listed("search", "Changed.")]);
    expect(resolution.revision.digest).toBe((pinnedOf(snapshot, "search") as { digest: string }).digest);
    expect(registry.revision(resolution.revision.digest)).toBe(resolution.revision);
  });

  it("refuses a tool a source lists under a name another origin holds (TOOL_REGISTRATION_CONFLICT)", async () => {
    const registry = createToolRegistry({ tools: [readTool()] });
    const source = createStaticToolSource({ origin, tools: [listed("read")] });
    await expect(registry.addSource(source, { trustDomain: "x" })).rejects.toMatchObject({ code: "TOOL_REGISTRATION_CONFLICT" });
    expect(source.closed).toBe(true);
  });
});
