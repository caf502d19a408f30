// One process of the interrupts tests: starts or resumes one run over a SQLite journal in
// `--dir`, or, as another process, interrupts it. The run's first turn calls `work`, which
// waits for `finish` on stdin; its answer is gated by a verifier when `--verifier` is safe or
// unsafe (replay-safe or not), which waits for `finish` too. With `--model hang` the model
// never answers: every call is held until its signal aborts (a cancel cuts it), and the run
// has a budget, so the call's reservation is journaled. The test drives it over stdio:
//
//   node src/interrupt-scenario.ts --dir D --mode start|resume|interrupt-input|interrupt-cancel --verifier none|safe|unsafe --model script|hang
//
// stdout, one line each:  READY                      journal open, harness built; waiting for `go`
//                         MODEL_CALL <last user text> the harness asked the model (what it was told last)
//                         TOOL_STARTED               `work` runs; waiting for `finish`
//                         VERIFIER_STARTED           the verifier runs; waiting for `finish`
//                         INTERRUPTED <interruptId>  (interrupt modes) the request is in the run's inbox
//                         WAITING <reason>           start/resume returned: the run waits for a person
//                         DONE <json>                the run ended: { outcome }
//                         FAILED <code> <message>    refused with a YokeError
// stdin, one line each:   go | finish
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { createSqliteJournal } from "@yoke/journal";
import { YokeError, steppingClock, ulidIdSource, type VerifierV1 } from "@yoke/protocol";
import { createHarness, defineTool, type RunResult, type WaitingRunResult } from "@yoke/runtime";
import { callTools, say } from "@yoke/testkit";
import { z } from "zod";
import { modelAfterJournal, runScenario, scenarioStdio, seededRandom } from "@yoke/testkit/crash";

const { values } = parseArgs({ options: { dir: { type: "string" }, mode: { type: "string" }, verifier: { type: "string" }, model: { type: "string" } } });
const dir = resolve(values.dir!);
mkdirSync(dir, { recursive: true });
const mode = values.mode as "start" | "resume" | "interrupt-input" | "interrupt-cancel";
const verifierMode = (values.verifier ?? "none") as "none" | "safe" | "unsafe";
const hang = values.model === "hang";
const scope = { tenantId: "tenant_interrupts", runId: "run_interrupted" };
const START = Date.UTC(2026, 0, 1);

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

const verifier: VerifierV1 = {
  specificationVersion: "v1",
  id: "deploy-check",
  kind: "command",
  replaySafe: verifierMode === "safe",
  async verify() {
    emit("VERIFIER_STARTED");
    await heard("finish");
    return { verifierId: "deploy-check", kind: "command", passed: true, reason: "deployed" };
  },
};

// The model's answers the journal does not hold yet: nothing is asked twice.
const script = [callTools([{ name: "work", args: {} }]), say("All done.")];
const { model, lastAt } = await modelAfterJournal(store, scope, script, {
  start: START,
  onCall(request) {
    const last = request.messages.at(-1);
    const text = last?.role === "user" ? last.content.map((part) => (part.type === "text" ? part.text : "")).join(" ") : "";
    emit(`MODEL_CALL ${text}`);
  },
  answer: (_request, options) => (hang ? held(options?.signal) : undefined),
});
const clock = steppingClock(lastAt + 1, 1);
const harness = createHarness({
  journal: store,
  provider: model,
  tools: [work],
  tenantId: scope.tenantId,
  clock,
  ids: ulidIdSource({ clock, random: seededRandom(process.pid) }),
  maxTurns: 4,
  ...(verifierMode === "none" ? {} : { verifiers: [verifier] }),
  // A held call is cut by the owner's inbox watch within 50 ms of a cancel from another process.
  ...(hang ? { budget: { limits: { turns: 4, tokens: 1_000_000 }, outputReserve: 100 }, interrupts: { pollMs: 50 } } : {}),
});

await runScenario(
  io,
  async () => {
    if (mode === "interrupt-input" || mode === "interrupt-cancel") {
      const request = mode === "interrupt-input" ? { input: "Also check the staging database." } : { cancel: "the customer withdrew" };
      const { interruptId } = await harness.interrupt(scope.runId, request);
      emit(`INTERRUPTED ${interruptId}`);
    } else {
      // A refusal or an escalation waits for a person, with or without a policy.
      const result = (mode === "start" ? await harness.start("Do the work.", { runId: scope.runId }) : await harness.resume(scope.runId)) as
        | RunResult
        | WaitingRunResult;
      if (result.waiting !== undefined) emit(`WAITING ${result.waiting.kind === "human" ? result.waiting.reason : result.waiting.kind}`);
      else emit(`DONE ${JSON.stringify({ outcome: result.outcome.status })}`);
    }
  },
  async () => {
    await store.close();
  },
);

/** A model call that never answers: it fails with CANCELLED when its signal aborts. */
function held(signal: AbortSignal | undefined): Promise<never> {
  return new Promise((_resolve, reject) => {
    signal?.addEventListener("abort", () => reject(new YokeError("CANCELLED", "the request was aborted")), { once: true });
  });
}
