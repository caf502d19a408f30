// One process of the subagent crash test: starts or resumes a parent run over a SQLite journal
// in `--dir`; the parent spawns one subagent, whose poke tool holds (for a kill) in the first
// process. The test drives it over stdio:
//
//   node src/subagent-scenario.ts --dir D --mode start|resume
//
// stdout, one line each:  READY                      journal open, harness built; waiting for `go`
//                         CHILD_POKE <n>             the child's poke number n (in this process) runs
//                         HOLDING                    the child's poke waits (start mode): kill now
//                         DONE <json>                the parent ended: { outcome }
//                         FAILED <code> <message>    refused with a YokeError
// stdin:                  go                         act now
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { createSqliteJournal } from "@yoke/journal";
import { steppingClock, ulidIdSource, type ModelRequest, type ProviderAdapterV1 } from "@yoke/protocol";
import { createHarness, defineTool } from "@yoke/runtime";
import { callTools, createScriptedModel, say } from "@yoke/testkit";
import { z } from "zod";
import { runScenario, scenarioStdio, seededRandom } from "@yoke/testkit/crash";

const { values } = parseArgs({ options: { dir: { type: "string" }, mode: { type: "string" } } });
const dir = resolve(values.dir!);
mkdirSync(dir, { recursive: true });
const mode = values.mode as "start" | "resume";
const scope = { tenantId: "tenant_runaway", runId: "run_parent" };
const CLAIMS = { claims: [{ claim: "item 7 is poked", confidence: "high", evidence: [{ ref: "call:call_poke" }] }] };

const io = scenarioStdio();
const { emit } = io;

const store = await createSqliteJournal({ filename: join(dir, "journal.sqlite") });
let lastAt = Date.UTC(2026, 0, 1);
for await (const event of store.read(scope)) lastAt = Math.max(lastAt, event.at);

let pokes = 0;
const poke = defineTool({
  name: "poke",
  description: "Pokes item n. Read-only.",
  input: z.object({ n: z.number().int() }),
  sideEffect: "none",
  timeoutMs: 600_000,
  async execute({ n }) {
    pokes += 1;
    emit(`CHILD_POKE ${pokes}`);
    if (mode === "start") {
      emit("HOLDING");
      await new Promise(() => undefined);
    }
    return `poked ${n}`;
  },
});

// Parent and child share one provider: a request offering spawn_subagent is the parent's. Each
// model answers from the start of its script on the turn it is asked (the journal holds the rest).
const parentModel = createScriptedModel([callTools([{ name: "spawn_subagent", args: { task: "poke item 7 and report" } }]), say("the subagent poked item 7")]);
const childModel = createScriptedModel([callTools([{ name: "poke", args: { n: 7 }, id: "call_poke" }]), say(JSON.stringify(CLAIMS))]);
const answered = { parent: 0, child: 0 };
const provider: ProviderAdapterV1 = {
  specificationVersion: "v1",
  provider: parentModel.provider,
  modelId: parentModel.modelId,
  capabilities: parentModel.capabilities,
  async generate(request: ModelRequest, options) {
    const isParent = request.tools.some((tool) => tool.name === "spawn_subagent");
    const model = isParent ? parentModel : childModel;
    // Skip the answers a journal already holds: count the assistant turns in the request.
    const seen = request.messages.filter((message) => message.role === "assistant").length;
    const done = isParent ? answered.parent : answered.child;
    for (let skip = done; skip < seen; skip++) await model.generate(request, options);
    if (isParent) answered.parent = seen + 1;
    else answered.child = seen + 1;
    return model.generate(request, options);
  },
};

const clock = steppingClock(lastAt + 1_000, 1);
const harness = createHarness({
  journal: store,
  provider,
  tools: [poke],
  tenantId: scope.tenantId,
  clock,
  ids: ulidIdSource({ clock, random: seededRandom(process.pid) }),
  maxTurns: 10,
  budget: { limits: { tokens: 1_000_000, fan_out: 2, tool_ops: 10 } },
  subagents: { tools: ["poke"], budget: { tokens: 200_000, tool_ops: 3, turns: 4 } },
});

await runScenario(
  io,
  async () => {
    const result =
      mode === "start" ? await harness.start("Find out about item 7, through a subagent.", { runId: scope.runId }) : await harness.resume(scope.runId);
    emit(`DONE ${JSON.stringify({ outcome: result.outcome })}`);
  },
  async () => {
    await store.close();
  },
);
