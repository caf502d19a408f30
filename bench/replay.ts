// Replay throughput next to the original run's: the same workload (a run of N turns, two
// no-op tool calls a turn, a scripted model, memory journals) run, then replayed through the
// same code, rounds interleaved in one process; events per second, medians of the rounds.
// Prints one JSON line.
// usage: node replay.ts [turns] [rounds]
import { createMemoryJournal } from "@yoke/journal";
import { sequentialIdSource, type JournalV1 } from "@yoke/protocol";
import { createHarness, defineTool, replay, type HarnessOptions } from "@yoke/runtime";
import { callTools, createScriptedModel, say } from "@yoke/testkit";
import { z } from "zod";
import { median } from "./stats.ts";

const turns = Number(process.argv[2] ?? "50");
const rounds = Number(process.argv[3] ?? "7");
const TENANT = "tenant_bench";
const RUN = "run_bench";

const noop = (name: string) =>
  defineTool({ name, description: `No-op ${name}.`, input: z.object({ n: z.number() }), sideEffect: "none", execute: async ({ n }) => `ok ${n}` });
const tools = [noop("first"), noop("second")];

function options(journal: JournalV1): HarnessOptions {
  const steps = [
    ...Array.from({ length: turns - 1 }, (_, turn) =>
      callTools([
        { name: "first", args: { n: turn } },
        { name: "second", args: { n: turn } },
      ]),
    ),
    say("done"),
  ];
  return {
    journal,
    tenantId: TENANT,
    provider: createScriptedModel(steps),
    tools,
    maxTurns: turns + 1,
    clock: { specificationVersion: "v1", now: () => 1_000 },
    ids: sequentialIdSource(),
    sleep: async () => undefined,
  };
}

async function original(): Promise<{ ms: number; journal: JournalV1; events: number }> {
  const journal = createMemoryJournal();
  const harness = createHarness(options(journal));
  const started = performance.now();
  const result = await harness.start("Work.", { runId: RUN });
  const ms = performance.now() - started;
  if (result.outcome?.status !== "completed") throw new Error(`the bench run ended ${result.outcome?.status}`);
  return { ms, journal, events: (await journal.head({ tenantId: TENANT, runId: RUN }))!.length };
}

async function replayed(journal: JournalV1): Promise<number> {
  const started = performance.now();
  await replay({ journal, tenantId: TENANT, runId: RUN }, options(createMemoryJournal()));
  return performance.now() - started;
}

// Warm-up: both paths compiled before anything is timed.
const warm = await original();
await replayed(warm.journal);

const originalRates: number[] = [];
const replayRates: number[] = [];
let events = 0;
for (let round = 0; round < rounds; round += 1) {
  const run = await original();
  events = run.events;
  originalRates.push(run.events / (run.ms / 1_000));
  replayRates.push(run.events / ((await replayed(run.journal)) / 1_000));
}
const originalEventsPerSecond = median(originalRates);
const replayEventsPerSecond = median(replayRates);
console.log(JSON.stringify({ turns, events, rounds, originalEventsPerSecond, replayEventsPerSecond, ratio: replayEventsPerSecond / originalEventsPerSecond }));
