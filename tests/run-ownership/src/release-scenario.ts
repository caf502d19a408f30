// One process of the release tests: starts or resumes one run over a SQLite journal in `--dir`
// as runtime `--runtime`, with a declared migration (`--migration ok|throws`) or none. The
// run's first turn calls `work`, which waits for `finish` on stdin. The test drives it over stdio:
//
//   node src/release-scenario.ts --dir D --mode start|resume --runtime R --migration none|ok|throws
//
// stdout, one line each:  READY                      journal open, harness built; waiting for `go`
//                         TOOL_STARTED               `work` runs; waiting for `finish`
//                         MIGRATED <events>          the declared migration ran, given this many events
//                         DONE <json>                the run ended: { outcome }
//                         FAILED <code> <message>    refused with a YokeError
// stdin, one line each:   go | finish
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { createSqliteJournal } from "@yoke/journal";
import { steppingClock, ulidIdSource } from "@yoke/protocol";
import { createHarness, defineTool, type ReleaseMigration } from "@yoke/runtime";
import { callTools, say } from "@yoke/testkit";
import { modelAfterJournal, runScenario, scenarioStdio, seededRandom } from "@yoke/testkit/crash";
import { z } from "zod";

const { values } = parseArgs({ options: { dir: { type: "string" }, mode: { type: "string" }, runtime: { type: "string" }, migration: { type: "string" } } });
const dir = resolve(values.dir!);
mkdirSync(dir, { recursive: true });
const scope = { tenantId: "tenant_releases", runId: "run_released" };
const io = scenarioStdio();
const { heard, emit } = io;
const store = await createSqliteJournal({ filename: join(dir, "journal.sqlite") });

const work = defineTool({
  name: "work",
  description: "Does slow work.",
  input: z.object({}),
  sideEffect: "none",
  timeoutMs: 120_000,
  async execute() {
    emit("TOOL_STARTED");
    await heard("finish");
    return "worked";
  },
});

const { model, lastAt } = await modelAfterJournal(store, scope, [callTools([{ name: "work", args: {} }]), say("All done.")], { start: Date.UTC(2026, 0, 1) });
const clock = steppingClock(lastAt + 1, 1);
const runtime = values.runtime!;
const migrations: ReleaseMigration[] =
  values.migration === "ok" || values.migration === "throws"
    ? [
        {
          id: "one-to-two",
          from: (pinned) => pinned.runtime.startsWith("@yoke/runtime@1."),
          to: runtime,
          migrate({ events }) {
            if (values.migration === "throws") throw new Error("the 1.x tool results cannot be read");
            emit(`MIGRATED ${events.length}`);
            return [];
          },
        },
      ]
    : [];
const harness = createHarness({
  journal: store,
  provider: model,
  tools: [work],
  tenantId: scope.tenantId,
  clock,
  ids: ulidIdSource({ clock, random: seededRandom(process.pid) }),
  maxTurns: 4,
  runtimeVersion: runtime,
  releases: { migrations },
});

await runScenario(
  io,
  async () => {
    const result = values.mode === "start" ? await harness.start("Do the work.", { runId: scope.runId }) : await harness.resume(scope.runId);
    emit(`DONE ${JSON.stringify({ outcome: result.outcome?.status })}`);
  },
  async () => {
    await store.close();
  },
);
