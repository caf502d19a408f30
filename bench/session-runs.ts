// The per-turn cost of a session's tenth run against its first, in counts the machine does not
// move: promises created (async_hooks) and journal events read while the run is started and
// driven, per turn, and the request the model gets. Each run is the same two turns (a tool call,
// then an answer) in one session on a memory journal with a scripted model, so what grows from
// run 1 to run 10 is what continuing a session costs: reading and checking the earlier runs
// once per start, and a longer transcript to compile.
// usage: node session-runs.ts [runs]  (prints one JSON line)
import { createHook } from "node:async_hooks";
import { createMemoryJournal } from "@yoke/journal";
import { sequentialIdSource, steppingClock, type JournalV1, type ProviderAdapterV1 } from "@yoke/protocol";
import { createHarness, defineTool } from "@yoke/runtime";
import { callTools, createScriptedModel, say } from "@yoke/testkit";
import { z } from "zod";

const runs = Number(process.argv[2] ?? "10");
const inner = createMemoryJournal();
let eventsRead = 0;
const journal: JournalV1 = {
  ...inner,
  specificationVersion: inner.specificationVersion,
  capabilities: inner.capabilities,
  append: (scope, expectedSeq, drafts, options) => inner.append(scope, expectedSeq, drafts, options),
  async *read(scope, options) {
    for await (const event of inner.read(scope, options)) {
      eventsRead += 1;
      yield event;
    }
  },
  head: (scope) => inner.head(scope),
  verify: (scope) => inner.verify(scope),
  listRuns: (tenantId) => inner.listRuns(tenantId),
  close: () => inner.close(),
  ...(inner.leases === undefined ? {} : { leases: inner.leases }),
};

let counting = false;
let promises = 0;
createHook({
  init(_id, type) {
    if (counting && type === "PROMISE") promises += 1;
  },
}).enable();

const lookup = defineTool({
  name: "lookup",
  description: "Looks a word up.",
  input: z.object({ word: z.string() }),
  sideEffect: "none",
  execute: async ({ word }) => `${word}: a word`,
});
const steps = Array.from({ length: runs }, (_, index) => [callTools([{ name: "lookup", args: { word: `word${index}` } }]), say(`Answer ${index + 1}.`)]).flat();
const model = createScriptedModel(steps);
// The counts when each model call is made: the first call's is the start's cost (reading and
// checking the earlier runs included), the second's less the first's is one turn's.
const atCall: { promises: number; eventsRead: number }[] = [];
const provider: ProviderAdapterV1 = {
  specificationVersion: "v1",
  provider: model.provider,
  modelId: model.modelId,
  capabilities: model.capabilities,
  generate(request, options) {
    atCall.push({ promises, eventsRead });
    return model.generate(request, options);
  },
};
const harness = createHarness({ journal, provider, tools: [lookup], tenantId: "tenant_bench", clock: steppingClock(0, 1), ids: sequentialIdSource() });

const perRun: SessionRunFigures[] = [];
for (let index = 0; index < runs; index++) {
  const calls = model.calls.length;
  atCall.length = 0;
  eventsRead = 0;
  promises = 0;
  counting = true;
  const result = await harness.start(`Question ${index + 1}: what does word${index} mean?`, { sessionId: "session_bench", runId: `run_${index + 1}` });
  counting = false;
  const last = model.calls.at(-1)!;
  perRun.push({
    run: index + 1,
    turns: result.state.turns,
    promisesPerTurn: promises / result.state.turns,
    eventsReadPerTurn: eventsRead / result.state.turns,
    startPromises: atCall[0]!.promises,
    startEventsRead: atCall[0]!.eventsRead,
    secondTurnPromises: atCall[1]!.promises - atCall[0]!.promises,
    requestMessages: last.messages.length,
    requestBytes: Buffer.byteLength(JSON.stringify(model.calls.slice(calls).at(-1))),
  });
}
const first = perRun[0]!;
const last = perRun.at(-1)!;
console.log(
  JSON.stringify({
    runs,
    first,
    last,
    promisesRatio: last.promisesPerTurn / first.promisesPerTurn,
    startPromisesRatio: last.startPromises / first.startPromises,
    secondTurnPromisesRatio: last.secondTurnPromises / first.secondTurnPromises,
    requestBytesRatio: last.requestBytes / first.requestBytes,
  }),
);

/** One run of the session, as bench/run.ts prints it. */
export interface SessionRunFigures {
  run: number;
  turns: number;
  promisesPerTurn: number;
  eventsReadPerTurn: number;
  startPromises: number;
  startEventsRead: number;
  secondTurnPromises: number;
  requestMessages: number;
  requestBytes: number;
}
