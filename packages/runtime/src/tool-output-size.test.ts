// How many copies of a big tool output reach the journal file: one, at most; none past the
// event limit (it goes to the artifact store, or the model is told it was too large).
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFileArtifactStore, createSqliteJournal } from "@yoke/journal";
import { parseYokeEvent, sequentialIdSource, steppingClock, type ArtifactStoreV2 } from "@yoke/protocol";
import { callTools, createScriptedModel, say } from "@yoke/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { bytesOnDisk, dumpTool, filesUnder } from "./__fixtures__/big-output.js";
import { TENANT, instantSleep, readAll } from "./__fixtures__/harness-fixtures.js";
import { createHarness } from "./harness.js";

const root = mkdtempSync(join(tmpdir(), "yoke-output-size-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const MiB = 1_048_576;

/** A one-line measurement CI prints (scripts/test-summary.ts). */
function summarize(task: { meta: object }, summary: string): void {
  (task.meta as { summary?: string }).summary = summary;
}

/** One tool call returning `bytes` bytes, on a fresh SQLite journal; the journal is closed after. */
async function runDump(bytes: number, options: { maxEventOutputBytes?: number; artifacts?: ArtifactStoreV2 } = {}) {
  const dir = mkdtempSync(join(root, "run-"));
  const journal = await createSqliteJournal({ filename: join(dir, "run.sqlite") });
  const dump = dumpTool(bytes);
  const model = createScriptedModel([callTools([{ name: "dump", args: {} }]), say("done")]);
  const harness = createHarness({
    journal,
    provider: model,
    tools: [dump.tool],
    tenantId: TENANT,
    clock: steppingClock(1_000, 1),
    ids: sequentialIdSource(),
    sleep: instantSleep,
    ...options,
  });
  const result = await harness.start("Dump the log.");
  model.assertConsumed();
  const events = (await readAll(journal, result.runId)).map(parseYokeEvent);
  await journal.close();
  return { dir, dump, model, result, events, dbBytes: bytesOnDisk(dir) };
}

describe("tool output in the journal: one copy", () => {
  it("a 5 MB output under the event limit is stored once: the database is < 1.1× the output", async ({ task }) => {
    const { result, dump, dbBytes, events } = await runDump(5_000_000, { maxEventOutputBytes: 8 * MiB });
    summarize(task, `database ${dbBytes} bytes for a ${dump.text.length}-byte output`);
    expect(result.outcome?.status).toBe("completed");
    // Before: 10.2 MB (the tool event and context.compiled's artifact each held the 5 MB).
    expect(dbBytes).toBeLessThan(dump.text.length * 1.1);
    expect(events.filter((event) => JSON.stringify(event.data).includes("THE END OF THE LOG")).map((event) => event.type)).toEqual(["action.committed"]);
  });

  it("a 20 MB output with an artifact store: the database stays under 1 MiB, the store holds exactly one 20 MB file", async ({ task }) => {
    const store = join(root, "artifacts-20mb");
    const { result, dump, dbBytes, events, model } = await runDump(20_000_000, { artifacts: createFileArtifactStore({ directory: store }) });
    summarize(task, `database ${dbBytes} bytes, artifact store ${bytesOnDisk(store)} bytes for a ${dump.text.length}-byte output`);
    expect(result.outcome?.status).toBe("completed");
    // Before: 40.6 MB of database for a 20 MB output.
    expect(dbBytes).toBeLessThan(MiB);
    const files = filesUnder(store);
    expect(files).toHaveLength(1);
    expect(statSync(files[0]!).size).toBe(20_000_000);
    const tenant = createHash("sha256").update(TENANT).digest("hex");
    expect(files[0]).toBe(join(store, "tenants", tenant, "sha256", dump.digest.slice(7, 9), dump.digest.slice(9)));
    const committed = events.find((event) => event.type === "action.committed")!;
    expect(committed.type === "action.committed" && committed.data.result.truncation).toEqual({
      originalBytes: 20_000_000,
      keptBytes: 262_144,
      artifact: { digest: dump.digest, bytes: 20_000_000, mediaType: "text/plain; charset=utf-8" },
    });
    // The model is shown the cut (16 KiB), told where the whole output is.
    expect(JSON.stringify(model.calls[1]!.messages)).toContain(`kept 16384 of 20000000 bytes; the full output is artifact ${dump.digest}`);
  });

  it("a 5 MB output past the event limit without a store: the model is shown TOOL_OUTPUT_TOO_LARGE, the run goes on, nothing big is journaled", async () => {
    const { result, dbBytes, events, model } = await runDump(5_000_000);
    expect(result.outcome?.status).toBe("completed");
    expect(dbBytes).toBeLessThan(MiB);
    const committed = events.find((event) => event.type === "action.committed")!;
    const envelope = committed.type === "action.committed" ? committed.data.result : undefined;
    expect(envelope?.status).toBe("error");
    expect(envelope?.error?.code).toBe("TOOL_OUTPUT_TOO_LARGE");
    expect(envelope?.error?.message).toMatch(
      /^the tool's output \(5000000 bytes of text\) is larger than the 262144 bytes one journal event may hold, and no artifact store is configured/,
    );
    expect(envelope?.truncation).toEqual({ originalBytes: 5_000_000, keptBytes: 0 });
    expect(JSON.stringify(model.calls[1]!.messages)).toContain("TOOL_OUTPUT_TOO_LARGE: the tool's output (5000000 bytes of text)");
  });
});
