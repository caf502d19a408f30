// The tool registry's cost for 10, 100 and 1,000 tools, next to its floor measured in the same
// process: canonicalJson + SHA-256 of the same tools' specs (what digesting them at the very
// least costs). Prints one JSON line. Rounds are interleaved (floor, build, snapshot, discover,
// in turn) and each figure is the median of the rounds.
//   build:    createToolRegistry({ tools }) + snapshot(): every revision digested (model,
//             contract, identity) and the snapshot sorted and digested: what a harness pays once;
//   snapshot: snapshot() of a built registry: what a run start pays;
//   discover: discover(snapshot, request) with a principal grant and a capability filter:
//             what every turn pays.
// usage: node registry-snapshot.ts [rounds]
import { createHash } from "node:crypto";
import { canonicalJson, jsonSchema, type ToolDeclarationV1, type ToolSpec } from "@yoke/protocol";
import { createToolRegistry } from "@yoke/tool-registry";
import { median } from "./stats.ts";

const rounds = Number(process.argv[2] ?? "9");
const SIZES = [10, 100, 1_000] as const;
const CAPABILITIES = ["fs.read", "fs.write", "web", "payments", "mail"] as const;

function toolsOf(count: number): ToolDeclarationV1[] {
  return Array.from({ length: count }, (_, index) => {
    const name = `tool_${String(index).padStart(4, "0")}`;
    const inputSchema = {
      type: "object",
      properties: { path: { type: "string", description: "Where." }, limit: { type: "integer", minimum: 1 }, mode: { enum: ["a", "b", "c"] } },
      required: ["path"],
      additionalProperties: false,
    };
    const spec: ToolSpec = { name, description: `Tool number ${index}: does one thing to a workspace file and reports what it did.`, inputSchema };
    return {
      specificationVersion: "v1",
      name,
      spec,
      input: jsonSchema(inputSchema),
      sideEffect: index % 3 === 0 ? "none" : "idempotent",
      timeoutMs: 10_000,
      owner: `team-${index % 7}`,
      execute: async () => "ok",
    } satisfies ToolDeclarationV1;
  });
}

/** Times `work` repeated until it has run for ~`targetMs` (at least once): µs per call. */
function timed(work: () => void, targetMs = 25): number {
  let calls = 0;
  const start = process.hrtime.bigint();
  let elapsed = 0;
  do {
    work();
    calls += 1;
    elapsed = Number(process.hrtime.bigint() - start) / 1_000;
  } while (elapsed < targetMs * 1_000);
  return elapsed / calls;
}

const rows = SIZES.map((size) => {
  const tools = toolsOf(size);
  const grants = { "user-1": { capabilities: ["fs.read", "web"] } };
  const build = () => {
    const registry = createToolRegistry({ grants });
    for (const [index, tool] of tools.entries())
      registry.register(tool, { capabilities: [CAPABILITIES[index % CAPABILITIES.length]!, CAPABILITIES[(index * 3) % CAPABILITIES.length]!] });
    return registry;
  };
  const built = build();
  const snapshot = built.snapshot();
  const request = { principal: "user-1", task: "tidy the workspace", filter: { sideEffects: ["none", "idempotent"] as const } };
  // Keep results alive so no work is optimized away.
  let sink = 0;
  const floor = () => {
    for (const tool of tools) sink += createHash("sha256").update(canonicalJson(tool.spec)).digest("hex").length;
  };
  const samples = { floor: [] as number[], build: [] as number[], snapshot: [] as number[], discover: [] as number[] };
  // Warm-up (JIT, lazily built caches), not measured.
  for (const work of [floor, () => build().snapshot(), () => built.snapshot(), () => built.discover(snapshot, request)]) timed(work as () => void, 50);
  for (let round = 0; round < rounds; round++) {
    samples.floor.push(timed(floor));
    samples.build.push(timed(() => void (sink += build().snapshot().revisions.length)));
    samples.snapshot.push(timed(() => void (sink += built.snapshot().revisions.length)));
    samples.discover.push(timed(() => void (sink += built.discover(snapshot, request).revisions.length)));
  }
  const floorUs = median(samples.floor);
  const buildUs = median(samples.build);
  const snapshotUs = median(samples.snapshot);
  const discoverUs = median(samples.discover);
  return {
    tools: size,
    offered: built.discover(snapshot, request).revisions.length,
    floorUs,
    buildUs,
    snapshotUs,
    discoverUs,
    buildRatio: buildUs / floorUs,
    snapshotRatio: snapshotUs / floorUs,
    discoverRatio: discoverUs / floorUs,
    sink: sink > 0,
  };
});

console.log(JSON.stringify({ rounds, rows }));
