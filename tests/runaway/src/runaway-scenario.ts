// One process of the runaway crash test: starts or resumes one run over a SQLite journal in
// `--dir`, with a model that never stops (every answer pokes again) and a budget of
// `--tool-ops` tool operations. The test drives it over stdio:
//
//   node src/runaway-scenario.ts --dir D --mode start|resume --tool-ops N [--hold-at K]
//
// stdout, one line each:  READY                      journal open, harness built; waiting for `go`
//                         TOOL_STARTED <n> <attempt> poke number n (1-based, in this process) runs
//                         HOLDING <n>                poke n waits (for a kill): --hold-at K holds the K-th
//                         DONE <json>                the run ended: { outcome }
//                         FAILED <code> <message>    refused with a YokeError
// stdin, one line each:   go                         act now
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { createSqliteJournal } from "@yoke/journal";
import { steppingClock, ulidIdSource } from "@yoke/protocol";
import { createHarness, defineTool } from "@yoke/runtime";
import { z } from "zod";
import { runScenario, scenarioStdio, seededRandom } from "@yoke/testkit/crash";
import { ENDLESS, endlessModel } from "./runaway-fixtures.ts";

const { values } = parseArgs({
  options: { dir: { type: "string" }, mode: { type: "string" }, "tool-ops": { type: "string" }, "hold-at": { type: "string" } },
});
const dir = resolve(values.dir!);
mkdirSync(dir, { recursive: true });
const mode = values.mode as "start" | "resume";
const toolOps = Number(values["tool-ops"]);
const holdAt = values["hold-at"] === undefined ? undefined : Number(values["hold-at"]);
const scope = { tenantId: "tenant_runaway", runId: "run_runaway" };
const START = Date.UTC(2026, 0, 1);

const io = scenarioStdio();
const { emit } = io;

const store = await createSqliteJournal({ filename: join(dir, "journal.sqlite") });
let lastAt = START;
for await (const event of store.read(scope)) lastAt = event.at;

let pokes = 0;
const poke = defineTool({
  name: "poke",
  description: "Pokes item n. Read-only.",
  input: z.object({ n: z.number().int() }),
  sideEffect: "none",
  timeoutMs: 600_000,
  async execute({ n }, context) {
    pokes += 1;
    emit(`TOOL_STARTED ${pokes} ${context.attemptId}`);
    if (pokes === holdAt) {
      emit(`HOLDING ${pokes}`);
      await new Promise(() => undefined);
    }
    return `poked ${n}`;
  },
});

const clock = steppingClock(lastAt + 1, 1);
const harness = createHarness({
  journal: store,
  provider: endlessModel(),
  tools: [poke],
  tenantId: scope.tenantId,
  clock,
  ids: ulidIdSource({ clock, random: seededRandom(process.pid) }),
  maxTurns: ENDLESS,
  budget: { limits: { tool_ops: toolOps } },
});

await runScenario(
  io,
  async () => {
    const result = mode === "start" ? await harness.start("Poke everything, forever.", { runId: scope.runId }) : await harness.resume(scope.runId);
    emit(`DONE ${JSON.stringify({ outcome: result.outcome })}`);
  },
  async () => {
    await store.close();
  },
);
