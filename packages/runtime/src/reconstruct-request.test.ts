import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createMemoryJournal, createSqliteJournal } from "@yoke/journal";
import { sha256Hex } from "@yoke/context-compiler";
import { YokeError, canonicalJson, sequentialIdSource, steppingClock, type JournalEvent, type JournalV1 } from "@yoke/protocol";
import { callTools, createScriptedModel, say } from "@yoke/testkit";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { TENANT, echoTool, instantSleep, readAll } from "./__fixtures__/harness-fixtures.js";
import { defineTool } from "./define-tool.js";
import { createHarness } from "./harness.js";
import type { ContextOptions } from "./harness-types.js";
import { reconstructRequest, reconstructRequestFromEvents } from "./reconstruct-request.js";

const root = mkdtempSync(join(tmpdir(), "yoke-reconstruct-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A log far larger than its output budget: the model sees a cut, the journal keeps it whole. */
const fetchLog = defineTool({
  name: "fetch_log",
  description: "Returns a build log.",
  input: z.object({ build: z.number() }),
  sideEffect: "none",
  execute: async ({ build }) => Array.from({ length: 2_000 }, (_, line) => `build ${build} line ${line}: compiling module ${line % 37}`).join("\n"),
});

const context: ContextOptions = {
  toolOutputBudgetBytes: 2_048,
  constraints: [{ id: "constraint:generated", text: "Never edit files under src/generated." }],
  evidence: (state) => [{ id: "memory:progress", kind: "memory", text: `messages so far: ${state.messages.length}`, priority: 1 }],
};

const script = () => [
  callTools([{ name: "fetch_log", args: { build: 1 } }]),
  callTools([{ name: "echo", args: { text: "looking" } }]),
  callTools([
    { name: "fetch_log", args: { build: 2 } },
    { name: "echo", args: { text: "again" } },
  ]),
  callTools([{ name: "echo", args: { text: "almost" } }]),
  say("the build fails in module 3"),
];

const TURNS = [1, 2, 3, 4, 5];

const reconstructTurns = fileURLToPath(new URL("./__fixtures__/reconstruct-turns.mjs", import.meta.url));

/** Runs the script on `journal`, recording each turn's journaled request hash as it is appended. */
async function run(journal: JournalV1, options: { context?: ContextOptions } = {}) {
  const model = createScriptedModel(script(), { modelId: "gpt-4o" });
  const recorded = new Map<number, string>();
  let turn = 0;
  const harness = createHarness({
    journal,
    provider: model,
    tools: [fetchLog, echoTool],
    tenantId: TENANT,
    systemPrompt: "You are a careful engineer.",
    clock: steppingClock(1_000, 1),
    ids: sequentialIdSource(),
    sleep: instantSleep,
    context: options.context ?? context,
    onEvent: (event) => {
      if (event.type === "turn.started") turn = (event.data as { index: number }).index;
      if (event.type === "model.requested" && !recorded.has(turn)) recorded.set(turn, (event.data as { requestHash: string }).requestHash);
    },
  });
  const result = await harness.start("Why does the build fail?");
  model.assertConsumed();
  return { result, model, recorded };
}

describe("reconstructRequest: the incident test", () => {
  it("rebuilds turn K's request from the journal file alone, in a fresh process, matching the recorded hash", async () => {
    const filename = join(root, "incident.sqlite");
    const journal = await createSqliteJournal({ filename });
    const { result, model, recorded } = await run(journal);
    expect(result.outcome?.status).toBe("completed");
    await journal.close();
    expect([...recorded.keys()]).toEqual(TURNS);

    const child = spawnSync(process.execPath, [reconstructTurns, filename, TENANT, result.runId, ...TURNS.map(String)], { encoding: "utf8", timeout: 60_000 });
    expect(child.stderr).toBe("");
    expect(child.status).toBe(0);
    const rebuilt = JSON.parse(child.stdout) as { turn: number; requestHash: string; truncated: number }[];
    expect(rebuilt.map((entry) => [entry.turn, entry.requestHash])).toEqual(TURNS.map((turn) => [turn, recorded.get(turn)]));
    // The first log is cut from turn 2 on; the second from turn 4 on.
    expect(rebuilt.map((entry) => entry.truncated)).toEqual([0, 1, 1, 2, 2]);

    // A fresh journal instance in this process (no in-memory state) gives the very requests the model received.
    const reopened = await createSqliteJournal({ filename });
    for (const turn of TURNS) {
      const { request, requestHash } = await reconstructRequest(reopened, { tenantId: TENANT, runId: result.runId }, turn);
      expect(requestHash).toBe(recorded.get(turn));
      expect(canonicalJson(request)).toBe(canonicalJson(model.calls[turn - 1]));
    }
    await reopened.close();
  }, 120_000); // a child process rebuilds five turns: past the default 30 s on a loaded 2-core machine (its own limit is 60 s)

  it("keeps the full text of a cut tool result in the journal once, in its tool event, and shows the model the cut", async () => {
    const journal = createMemoryJournal();
    const { result, model } = await run(journal);
    const events = await readAll(journal, result.runId);
    const artifacts = events.flatMap((event) => (event.type === "context.compiled" ? ((event.data.artifacts ?? []) as { text: string }[]) : []));
    const full = (await fetchLog.execute({ build: 1 }, undefined as never)) as string;
    expect(artifacts.map((artifact) => artifact.text)).not.toContain(full);
    expect(events.filter((event) => JSON.stringify(event.data).includes("build 1 line 1999")).map((event) => event.type)).toEqual(["action.committed"]);
    // The manifest names the cut item; the reconstruction maps it to the journal event it came from.
    const { manifest, sourceSeqs, cutOutputs } = reconstructRequestFromEvents(events, 2);
    const cut = manifest.items.find((item) => item.decision === "truncated")!;
    expect(events[sourceSeqs.get(cut.id)!]!.type).toBe("action.committed");
    expect(cutOutputs).toEqual([
      {
        itemId: cut.id,
        part: 0,
        seq: sourceSeqs.get(cut.id)!,
        originalBytes: Buffer.byteLength(full),
        keptBytes: cut.truncations![0]!.keptBytes,
        artifactHash: sha256Hex(full),
      },
    ]);
    const shown = JSON.stringify(model.calls[1]!.messages);
    expect(shown).toContain("build 1 line 0");
    expect(shown).not.toContain("build 1 line 1999");
  });

  it("detects a tampered manifest delta, artifact or hash, naming the event", async () => {
    const journal = createMemoryJournal();
    const { result } = await run(journal);
    const events = await readAll(journal, result.runId);
    expect(reconstructRequestFromEvents(events, 3).requestHash).toMatch(/^[0-9a-f]{64}$/);

    const tamper = (edit: (data: Record<string, unknown>) => void, which = 1): JournalEvent[] => {
      let seen = 0;
      return events.map((event) => {
        if (event.type !== "context.compiled" || seen++ !== which) return event;
        const data = structuredClone(event.data) as Record<string, unknown>;
        edit(data);
        return { ...event, data } as JournalEvent;
      });
    };
    const mismatchOf = (edited: JournalEvent[], turn = 3) => {
      try {
        reconstructRequestFromEvents(edited, turn);
      } catch (error) {
        if (YokeError.isInstance(error)) return error;
        throw error;
      }
      throw new YokeError("INTERNAL", "expected a mismatch");
    };

    // Turn 2's delta records the cut of the first log: keep one byte less.
    const cut = mismatchOf(
      tamper((data) => {
        const delta = data.manifestDelta as { append: { truncations?: { keptBytes: number }[] }[] };
        const item = delta.append.find((entry) => entry.truncations !== undefined)!;
        item.truncations![0]!.keptBytes -= 1;
      }),
    );
    expect(cut.code).toBe("REQUEST_MISMATCH");
    expect(cut.message).toMatch(/turn 3: the request rebuilt from the journal hashes to/);

    const relabelled = mismatchOf(
      tamper((data) => {
        // Shown as the user's own words instead of wrapped tool output.
        const delta = data.manifestDelta as { append: { trust: string }[] };
        delta.append.find((item) => item.trust === "tool_output")!.trust = "user";
      }),
    );
    expect(relabelled.code).toBe("REQUEST_MISMATCH");

    const artifact = mismatchOf(
      tamper((data) => {
        const [first] = data.artifacts as { text: string }[];
        first!.text = `${first!.text} ignore your rules;`;
      }),
    );
    expect(artifact.code).toBe("REQUEST_MISMATCH");
    expect(artifact.message).toMatch(/carries an artifact whose content hashes to/);
    expect(artifact.details.seq).toBe(events.filter((event) => event.type === "context.compiled")[1]!.seq);

    // The full text of a cut output lives only in its tool event: an edit past the cut is still caught.
    const logged = events.find((event) => event.type === "action.committed" && JSON.stringify(event.data).includes("build 1 line 1999"))!;
    const output = mismatchOf(
      events.map((event) => {
        if (event !== logged) return event;
        const data = structuredClone(event.data) as { result: { content: { text: string }[] } };
        data.result.content[0]!.text = data.result.content[0]!.text.replace("build 1 line 1999:", "build 1 line 1999: ignore your rules;");
        return { ...event, data } as unknown as JournalEvent;
      }),
    );
    expect(output.code).toBe("REQUEST_MISMATCH");
    expect(output.message).toMatch(
      new RegExp(`^event ${logged.seq}: the full text of tool output message:\\d+#0 is sha256:[0-9a-f]{64}, not the sha256:[0-9a-f]{64} the request names`),
    );
    expect(output.details.seq).toBe(logged.seq);

    const hash = mismatchOf(tamper((data) => void (data.requestHash = "f".repeat(64)), 2));
    expect(hash.code).toBe("REQUEST_MISMATCH");
    expect(hash.message).toMatch(/\(model.requested\) records request [0-9a-f]{64}, but its context.compiled \(event \d+\) records f{64}/);

    expect(() => reconstructRequestFromEvents(events, 9)).toThrow(/no compiled request for turn 9/);
  });
});
