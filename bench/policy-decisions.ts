// Policy decisions per second and per-decision p50/p99 with 10 and 1,000 rules, both sizes
// measured in the same process with rounds interleaved, so the 1,000 / 10 ratio compares like
// with like. The same eight tuples are decided at both sizes (every outcome: allow,
// require_approval, a deny rule, a near-miss default deny, a read-only default, a call for a
// tool no rule names, which takes the slow path that scans every granting rule for the
// nearest one). Rules are five per tool, plus a few whose tool names are globs (consulted for
// every tuple). Prints one JSON line.
//   throughput: decide() over the tuple cycle in windows of ~5 ms, ten per round, median of
//               all windows (short windows: a shared machine's preemptions hit few of them);
//   p50 / p99: every decision timed alone with process.hrtime.bigint() over all rounds
//              (the timer's own cost, `timerNs`, is included and printed next to it).
// usage: node policy-decisions.ts [rounds]
import { createPolicyEngine, type PolicyRule, type RuleMatch } from "@yoke/policy";
import type { PolicyEngineV1, PolicyTuple } from "@yoke/protocol";
import { median } from "./stats.ts";

const rounds = Number(process.argv[2] ?? "7");
const SIZES = [10, 1_000] as const;
const SAMPLES_PER_ROUND = 20_000;
const REVISION = "a".repeat(64);

const toolName = (index: number) => `tool_${String(index).padStart(4, "0")}`;

function matchFor(name: string, overrides: Partial<RuleMatch>): RuleMatch {
  return {
    tenant: ["acme"],
    principal: { ids: ["user-*"], authenticated: [true] },
    scopes: ["payments:write", "mail:send"],
    tool: { names: [name], revisions: "*", owners: "*" },
    verb: ["transfer"],
    resource: ["account:*"],
    path: "*",
    dataClassification: ["internal", "confidential"],
    destination: ["iban:*"],
    baseRevision: "*",
    sideEffect: ["irreversible"],
    expectedEffect: ["debit"],
    provenance: { roles: ["recipient", "url"], origins: ["trusted"] },
    ...overrides,
  };
}

function rulesOf(count: number): PolicyRule[] {
  const rules: PolicyRule[] = [];
  const globRules = count >= 100 ? 5 : 0;
  for (let index = 0; rules.length < count - globRules; index++) {
    const name = toolName(index);
    rules.push({ id: `${name}-allow`, effect: "allow", match: matchFor(name, {}) });
    rules.push({ id: `${name}-approve`, effect: "require_approval", match: matchFor(name, { expectedEffect: ["debit:large"] }) });
    rules.push({ id: `${name}-deny`, effect: "deny", match: { tool: { names: [name] }, destination: ["iban:FR*"] } });
    rules.push({ id: `${name}-read`, effect: "allow", match: matchFor(name, { verb: ["read"], sideEffect: ["none"], destination: [null], provenance: "*" }) });
    rules.push({ id: `${name}-internal`, effect: "allow", match: matchFor(name, { tenant: ["acme-internal"], dataClassification: "*" }) });
  }
  rules.length = count - globRules;
  for (let index = 0; index < globRules; index++) {
    rules.push({ id: `glob-${index}`, effect: "allow", match: matchFor(`batch_${index}_*`, { sideEffect: "*" }) });
  }
  return rules;
}

const base: PolicyTuple = {
  tenantId: "acme",
  principal: { id: "user-1", authenticated: true },
  task: { runId: "run-1", scopes: ["payments:write"] },
  tool: { name: toolName(1), revision: REVISION, owner: "payments" },
  verb: "transfer",
  resource: "account:1234",
  dataClassification: "confidential",
  destination: "iban:DE89370400440532013000",
  sideEffect: "irreversible",
  expectedEffect: "debit",
  argumentsDigest: "b".repeat(64),
  provenance: [{ path: "/recipient", role: "recipient", value: "DE89370400440532013000", origin: "trusted", sources: [] }],
  influence: { integrity: "trusted", loweredBy: [] },
};
const { destination: _destination, ...noDestination } = base;
const TUPLES: { kind: string; tuple: PolicyTuple }[] = [
  { kind: "allow", tuple: base },
  { kind: "allow", tuple: { ...base, tool: { ...base.tool, name: toolName(0) } } },
  { kind: "require_approval", tuple: { ...base, expectedEffect: "debit:large" } },
  { kind: "deny rule", tuple: { ...base, destination: "iban:FR7630006000011234567890189" } },
  { kind: "default deny, near miss", tuple: { ...base, provenance: [{ ...base.provenance[0]!, origin: "untrusted_only" }] } },
  { kind: "read-only rule", tuple: { ...noDestination, verb: "read", sideEffect: "none" } },
  { kind: "read-only default", tuple: { ...base, tool: { ...base.tool, name: "search" }, sideEffect: "none" } },
  { kind: "default deny, unknown tool", tuple: { ...base, tool: { ...base.tool, name: "wire_abroad" } } },
];

let sink = 0;

function throughput(engine: PolicyEngineV1, targetMs = 5): number {
  let decisions = 0;
  const start = process.hrtime.bigint();
  let elapsedNs = 0;
  do {
    for (const { tuple } of TUPLES) sink += engine.decide(tuple).ruleId.length;
    decisions += TUPLES.length;
    elapsedNs = Number(process.hrtime.bigint() - start);
  } while (elapsedNs < targetMs * 1e6);
  return decisions / (elapsedNs / 1e9);
}

function sampleInto(engine: PolicyEngineV1, samples: number[], byKind: Map<string, number[]>): void {
  for (let index = 0; index < SAMPLES_PER_ROUND; index++) {
    const { kind, tuple } = TUPLES[index % TUPLES.length]!;
    const start = process.hrtime.bigint();
    const decision = engine.decide(tuple);
    const ns = Number(process.hrtime.bigint() - start);
    sink += decision.ruleId.length;
    samples.push(ns);
    byKind.get(kind)!.push(ns);
  }
}

function timerNs(): number {
  const samples: number[] = [];
  for (let index = 0; index < 20_000; index++) {
    const start = process.hrtime.bigint();
    samples.push(Number(process.hrtime.bigint() - start));
  }
  return median(samples);
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
};

const engines = SIZES.map((size) => {
  const engine = createPolicyEngine({ version: 1, id: `bench-${size}`, rules: rulesOf(size) });
  // Every size decides every tuple the same way: more rules, same answers.
  return { size, engine, expected: TUPLES.map(({ tuple }) => engine.decide(tuple).effect).join(",") };
});
if (new Set(engines.map((entry) => entry.expected)).size !== 1)
  throw new Error(`sizes decide differently: ${engines.map((entry) => entry.expected).join(" | ")}`);

const state = engines.map(() => ({ throughputs: [] as number[], samples: [] as number[], byKind: new Map(TUPLES.map(({ kind }) => [kind, [] as number[]])) }));
for (const { engine } of engines) throughput(engine, 200); // warm-up
for (let round = 0; round < rounds; round++) {
  for (const [index, { engine }] of engines.entries()) {
    for (let window = 0; window < 10; window++) state[index]!.throughputs.push(throughput(engine));
    sampleInto(engine, state[index]!.samples, state[index]!.byKind);
  }
}

const rows = engines.map(({ size }, index) => {
  const { throughputs, samples, byKind } = state[index]!;
  return {
    rules: size,
    decisionsPerSecond: median(throughputs),
    p50Us: percentile(samples, 50) / 1_000,
    p99Us: percentile(samples, 99) / 1_000,
    p50ByKindUs: Object.fromEntries([...byKind].map(([kind, values]) => [kind, percentile(values, 50) / 1_000])),
  };
});
const [small, large] = rows as [(typeof rows)[0], (typeof rows)[0]];
console.log(
  JSON.stringify({
    rounds,
    decisions: TUPLES.map(({ kind }, index) => `${kind}: ${engines[0]!.expected.split(",")[index]}`),
    timerNs: timerNs(),
    rows,
    ratio: { throughput: large.decisionsPerSecond / small.decisionsPerSecond, p50: large.p50Us / small.p50Us, p99: large.p99Us / small.p99Us },
    sink: sink > 0,
  }),
);
