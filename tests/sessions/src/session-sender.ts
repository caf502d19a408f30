// One process sending one message to session `session_race` over the SQLite journal in
// `--dir`, as run `--run`; its model call is held until the test writes `finish`. With
// `--wait` the send waits for the session's last run to end (`waitForSession`).
//
//   node src/session-sender.ts --dir D --run run_x --message "text" [--wait]
//
// stdout, one line each:  READY                       journal open; waiting for `go`
//                         WAITING_FOR_SESSION         (with --wait) the session's last run has not ended; waiting
//                         MODEL_CALL <message count>  the model was asked (shown that many messages)
//                         DONE <json>                 the run ended: { outcome, continues }
//                         FAILED <code> <message>     refused with a YokeError
// stdin, one line each:   go | finish
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { createSqliteJournal } from "@yoke/journal";
import { steppingClock, ulidIdSource, type ProviderAdapterV1 } from "@yoke/protocol";
import { createHarness } from "@yoke/runtime";
import { createScriptedModel, say } from "@yoke/testkit";
import { runScenario, scenarioStdio, seededRandom } from "@yoke/testkit/crash";

const { values } = parseArgs({ options: { dir: { type: "string" }, run: { type: "string" }, message: { type: "string" }, wait: { type: "boolean" } } });
const dir = resolve(values.dir!);
mkdirSync(dir, { recursive: true });
const io = scenarioStdio();
const journal = await createSqliteJournal({ filename: join(dir, "journal.sqlite") });

const shape = createScriptedModel([]);
const model: ProviderAdapterV1 = {
  specificationVersion: "v1",
  provider: shape.provider,
  modelId: shape.modelId,
  capabilities: shape.capabilities,
  async generate(request, options) {
    const shown = request.messages.filter((message) => message.role !== "system").length;
    io.emit(`MODEL_CALL ${shown}`);
    await io.heard("finish");
    return createScriptedModel([say(`answer to ${values.message}`)]).generate(request, options);
  },
};

let waitingSaid = false;
const clock = steppingClock(Date.UTC(2026, 0, 1) + process.pid * 1_000, 1);
const harness = createHarness({
  journal,
  provider: model,
  tools: [],
  tenantId: "tenant_sessions",
  clock,
  ids: ulidIdSource({ clock, random: seededRandom(process.pid) }),
  // The test waits on this line to know the send is waiting on the session.
  logger: {
    debug: () => undefined,
    info: (_fields, message) => {
      if (message?.startsWith("session busy") && !waitingSaid) {
        waitingSaid = true;
        io.emit("WAITING_FOR_SESSION");
      }
    },
    warn: () => undefined,
    error: () => undefined,
  },
});

await runScenario(
  io,
  async () => {
    const result = await harness.start(values.message!, { sessionId: "session_race", runId: values.run!, ...(values.wait ? { waitForSession: true } : {}) });
    io.emit(`DONE ${JSON.stringify({ outcome: result.outcome?.status, continues: result.state.continues?.map((pin) => pin.runId) ?? [] })}`);
  },
  () => journal.close(),
);
