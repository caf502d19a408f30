// A journal recorded before a field was added replays through today's code only because the
// addition is declared: without the declaration the same journal diverges, naming the field.
import { join } from "node:path";
import { YokeError } from "@yoke/protocol";
import { SCHEMA_ADDITIONS, type SchemaAddition, replay } from "@yoke/runtime";
import { describe, expect, it } from "vitest";
import { loadJournal, readJournalLines, rootRun, scenarioOptions } from "./replay-kit.js";
import { scenarioNamed } from "./scenarios.js";

const BEFORE_ADDITIONS = join(import.meta.dirname, "__fixtures__", "historical", "schema-1-fa33b6b");

async function replayOld(scenario: string, schemaAdditions?: readonly SchemaAddition[]) {
  const streams = readJournalLines(join(BEFORE_ADDITIONS, scenario, "journal.jsonl"));
  const journal = await loadJournal(streams);
  const { tenantId, runId } = rootRun(streams);
  return replay({ journal, tenantId, runId }, scenarioOptions(scenarioNamed(scenario)), schemaAdditions === undefined ? {} : { schemaAdditions });
}

async function divergenceOf(promise: Promise<unknown>): Promise<Record<string, unknown>> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!YokeError.hasCode(error, "REPLAY_DIVERGED")) throw new Error(`expected REPLAY_DIVERGED, got ${String(error)}`);
  return error.details as Record<string, unknown>;
}

describe("fields added since a journal was recorded", () => {
  it("every declared addition names its event type, a data path, the commit that added it and why", () => {
    for (const addition of SCHEMA_ADDITIONS) {
      expect(addition.type).toMatch(/^[a-z_]+\.[a-z_]+$/);
      expect(addition.path).toMatch(/^data\./);
      expect(addition.since).toMatch(/^[0-9a-f]{7,40}$/);
      expect(addition.why.length).toBeGreaterThan(10);
    }
  });

  it("a fa33b6b journal lacking influence diverges naming it when nothing is declared, and replays with the declaration", async () => {
    expect(await divergenceOf(replayOld("policy-allow-deny", []))).toMatchObject({ type: "tool.rejected", path: "data.influence", recorded: undefined });
    const report = await replayOld("policy-allow-deny");
    expect(report.status).toBe("finished");
  });

  it("a fa33b6b budget_exhausted outcome lacking requested/remaining diverges without the declaration, and replays with it", async () => {
    expect(await divergenceOf(replayOld("budget-refused", []))).toMatchObject({ type: "run.completed", path: "data.outcome.remaining", recorded: undefined });
    // Declaring one of the two fields is not enough: the other still diverges.
    const onlyRemaining = SCHEMA_ADDITIONS.filter((addition) => addition.path !== "data.outcome.requested");
    expect(await divergenceOf(replayOld("budget-refused", onlyRemaining))).toMatchObject({ path: "data.outcome.requested" });
    expect((await replayOld("budget-refused")).status).toBe("finished");
  });

  it("a declaration covers only its own event type", async () => {
    const elsewhere = SCHEMA_ADDITIONS.map((addition) => (addition.path === "data.influence" ? { ...addition, type: "action.proposed" } : addition));
    expect(await divergenceOf(replayOld("approval-granted", elsewhere))).toMatchObject({ type: "action.approval_requested", path: "data.influence" });
  });
});
