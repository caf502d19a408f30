// One process of the re-authorization crash test (issue 33, item 2): starts or resumes one run
// over a SQLite journal in `--dir`, with the policy `--policy` names. The idempotent tool "sync"
// writes to an effect ledger beside the journal. The test drives it over stdio:
//
//   node src/reauthorize-scenario.ts --dir D --mode start|resume --policy allow-v1|deny-v2|allow-v2
//
// stdout, one line each:  READY                   journal open, harness built; waiting for `go`
//                         MODEL_CALL              the harness asked the model
//                         POLICY_ASKED <attempt>  the policy decided a call (admission or a later attempt)
//                         TOOL_STARTED <attempt>  sync is running; waiting for `finish`
//                         DONE <json>             the run ended: { outcome }
//                         FAILED <code> <message> refused with a YokeError
// stdin, one line each:   go | finish
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { createSqliteJournal } from "@yoke/journal";
import { steppingClock, ulidIdSource, type PolicyEngineV1 } from "@yoke/protocol";
import { createHarness, defineTool } from "@yoke/runtime";
import { callTools, createEffectLedger, say } from "@yoke/testkit";
import { z } from "zod";
import { modelAfterJournal, runScenario, scenarioStdio, seededRandom } from "@yoke/testkit/crash";

const { values } = parseArgs({ options: { dir: { type: "string" }, mode: { type: "string" }, policy: { type: "string" } } });
const dir = resolve(values.dir!);
mkdirSync(dir, { recursive: true });
const mode = values.mode as "start" | "resume";
const scope = { tenantId: "tenant_reauthorize", runId: "run_sync" };
const START = Date.UTC(2026, 0, 1);

const io = scenarioStdio();
const { heard, emit } = io;

const store = await createSqliteJournal({ filename: join(dir, "journal.sqlite") });
const ledger = createEffectLedger(join(dir, "ledger.jsonl"));

const sync = defineTool({
  name: "sync",
  description: "Syncs the mirror. Idempotent: a repeat under the same key does no harm.",
  input: z.object({ mirror: z.string() }),
  sideEffect: "idempotent",
  timeoutMs: 120_000,
  policy: () => ({ verb: "sync", resource: "mirror:main" }),
  async execute({ mirror }, context) {
    emit(`TOOL_STARTED ${context.attempt}`);
    await heard("finish");
    ledger.apply({ resource: mirror, key: context.actionId, value: `attempt ${context.attempt}` });
    return `synced ${mirror}`;
  },
});

const POLICIES = {
  "allow-v1": { revision: "1".repeat(64), effect: "allow", ruleId: "syncs-allowed" },
  "allow-v2": { revision: "2".repeat(64), effect: "allow", ruleId: "syncs-allowed-v2" },
  "deny-v2": { revision: "2".repeat(64), effect: "deny", ruleId: "syncs-frozen" },
} as const;
const chosen = POLICIES[values.policy as keyof typeof POLICIES];
let asked = 0;
const policy: PolicyEngineV1 = {
  specificationVersion: "v1",
  revision: chosen.revision,
  decide: () => {
    asked += 1;
    emit(`POLICY_ASKED ${asked}`);
    return { effect: chosen.effect, ruleId: chosen.ruleId, policyRevision: chosen.revision, reason: `${chosen.effect} by ${chosen.ruleId}` };
  },
};

// The model's answers the journal does not hold yet: nothing is asked twice.
const script = [callTools([{ name: "sync", args: { mirror: "main" } }]), say("Done.")];
const { model, lastAt } = await modelAfterJournal(store, scope, script, { start: START, onCall: () => emit("MODEL_CALL") });
const clock = steppingClock(lastAt + 1, 1);
const harness = createHarness({
  journal: store,
  provider: model,
  tools: [sync],
  tenantId: scope.tenantId,
  clock,
  ids: ulidIdSource({ clock, random: seededRandom(process.pid) }),
  maxTurns: 4,
  policy,
  principal: { id: "user_7" },
});

await runScenario(
  io,
  async () => {
    const result = mode === "start" ? await harness.start("Sync the main mirror.", { runId: scope.runId }) : await harness.resume(scope.runId);
    emit(`DONE ${JSON.stringify({ outcome: result.outcome?.status })}`);
  },
  async () => {
    await store.close();
  },
);
