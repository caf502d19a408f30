// What a completion check's verdict comes from in a replay: the record by default (replay
// rebuilds the journal, not the world the checks read), or, with checks: "rerun", the check run
// again by today's code and compared.
import { join } from "node:path";
import { YokeError, type VerifierV1 } from "@yoke/protocol";
import { type HarnessOptions, type ReplayOptions, replay } from "@yoke/runtime";
import { describe, expect, it } from "vitest";
import { GOLDEN } from "./fixture-files.js";
import { loadJournal, readJournalLines, rootRun, scenarioOptions } from "./replay-kit.js";
import { scenarioNamed } from "./scenarios.js";

async function replayScenario(name: string, options: ReplayOptions, adjust: (harness: HarnessOptions) => HarnessOptions = (harness) => harness) {
  const streams = readJournalLines(join(GOLDEN, name, "journal.jsonl"));
  const journal = await loadJournal(streams);
  return replay({ journal, ...rootRun(streams) }, adjust(scenarioOptions(scenarioNamed(name))), options);
}

async function divergence(promise: Promise<unknown>): Promise<Record<string, unknown>> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!YokeError.hasCode(error, "REPLAY_DIVERGED")) throw new Error(`expected REPLAY_DIVERGED, got ${String(error)}`);
  return error.details as Record<string, unknown>;
}

/** The scenario's verifiers, each passing every answer: a changed check. */
const lenient = (harness: HarnessOptions): HarnessOptions => ({
  ...harness,
  verifiers: [harness.verifiers ?? []]
    .flat()
    .map((verifier: VerifierV1): VerifierV1 => ({ ...verifier, verify: async () => ({ verifierId: verifier.id, kind: verifier.kind, passed: true }) })),
});

describe("completion checks in a replay", () => {
  it("the quick-start's check reads the files its tools wrote: re-run in a replay that never ran them, it fails where it passed", async () => {
    expect(await divergence(replayScenario("quickstart-demo", { checks: "rerun" }))).toMatchObject({
      type: "verifier.finished",
      path: "data.verdict.passed",
      recorded: true,
      replayed: false,
    });
    expect((await replayScenario("quickstart-demo", {})).status).toBe("finished");
  });

  it("checks that read only their input re-run to the recorded verdicts", async () => {
    for (const name of ["verifier-pass", "verifier-fail", "verifier-fail-final"]) {
      expect((await replayScenario(name, { checks: "rerun" })).status, name).toBe("finished");
    }
  });

  it("a changed check diverges when re-run, and gives the recorded verdict otherwise", async () => {
    expect(await divergence(replayScenario("verifier-fail", { checks: "rerun" }, lenient))).toMatchObject({
      type: "verifier.finished",
      path: "data.verdict.passed",
      recorded: false,
      replayed: true,
    });
    expect((await replayScenario("verifier-fail", {}, lenient)).status).toBe("finished");
  });

  it("checks other than recorded or rerun is CONFIG_INVALID", async () => {
    await expect(replayScenario("verifier-pass", { checks: "sometimes" as never })).rejects.toMatchObject({
      code: "CONFIG_INVALID",
      details: { option: "checks" },
    });
  });
});
