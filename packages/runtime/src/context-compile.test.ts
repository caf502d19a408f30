import { createHash } from "node:crypto";
import { createMemoryJournal } from "@yoke/journal";
import { canonicalJson, type JournalV1, type ModelRequest } from "@yoke/protocol";
import { callTools, createScriptedModel, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { SimulatedCrash, TENANT, WRITER_RELEASE, crashingJournal, echoTool, readAll, rejectionOf, rig } from "./__fixtures__/harness-fixtures.js";
import type { ContextOptions } from "./harness-types.js";
import { reconstructRequestFromEvents } from "./reconstruct-request.js";

const RUN = "run_compile";

/** The request bytes of docs/decisions/0003, hashed: the canonical header, then each message, one per line. */
function requestHash({ messages, stablePrefixMessages: _prefix, ...header }: ModelRequest): string {
  return createHash("sha256")
    .update([header, ...messages].map((part) => `${canonicalJson(part)}\n`).join(""))
    .digest("hex");
}

const script = () => [callTools([{ name: "echo", args: { text: "one" } }]), callTools([{ name: "echo", args: { text: "two" } }]), say("done")];
const context: ContextOptions = { constraints: [{ id: "constraint:tone", text: "Be terse." }] };

async function requestedHashes(journal: JournalV1): Promise<string[]> {
  return (await readAll(journal, RUN)).flatMap((event) => (event.type === "model.requested" ? [(event.data as { requestHash: string }).requestHash] : []));
}

describe("the runtime compiles every request with @yoke/context-compiler", () => {
  it("journals context.compiled with model.requested, in the same append, before the call", async () => {
    const { harness, model, journal } = rig(script(), { context });
    await harness.start("echo twice", { runId: RUN });
    expect(journal.appends.filter((types) => types.includes("model.requested"))).toHaveLength(3);
    for (const types of journal.appends) {
      const at = types.indexOf("model.requested");
      if (at >= 0) expect(types[at - 1]).toBe("context.compiled");
    }
    expect(model.calls.map(requestHash)).toEqual(await requestedHashes(journal));
    const system = model.calls[0]!.messages[0]!;
    expect(system.role === "system" && system.content).toContain("Be terse.");
  });

  it("on resume recompiles the journaled request to the same bytes, and the model gets exactly it", async () => {
    const inner = createMemoryJournal();
    // Append 3 holds the first tool turn's outcome and the second request; the process dies after writing it.
    const crashing = rig(script(), { journal: crashingJournal(inner, 2, "written"), context });
    expect(await rejectionOf(crashing.harness.start("echo twice", { runId: RUN }))).toBeInstanceOf(SimulatedCrash);
    const journaled = await requestedHashes(inner);
    expect(journaled).toHaveLength(2);

    const fresh = rig(script().slice(1), { journal: inner, context, idStart: 1_000 });
    const result = await fresh.harness.resume(RUN);
    expect(result.outcome?.status).toBe("completed");
    expect(requestHash(fresh.model.calls[0]!)).toBe(journaled[1]);
    const events = await readAll(inner, RUN);
    expect(canonicalJson(reconstructRequestFromEvents(events, 2).request)).toBe(canonicalJson(fresh.model.calls[0]));
    // The resumed process's next delta applies to the manifest it read back from the journal.
    expect(reconstructRequestFromEvents(events, 3).requestHash).toBe((await requestedHashes(inner))[2]);
  });

  it("refuses to send a request that differs from the journaled one (REQUEST_MISMATCH), writing nothing", async () => {
    const inner = createMemoryJournal();
    const crashing = rig(script(), { journal: crashingJournal(inner, 2, "written"), context });
    await rejectionOf(crashing.harness.start("echo twice", { runId: RUN }));
    const length = (await readAll(inner, RUN)).length;
    const changed = rig(script().slice(1), { journal: inner, context: { constraints: [{ id: "constraint:tone", text: "Be verbose." }] }, idStart: 1_000 });
    const error = await rejectionOf(changed.harness.resume(RUN));
    expect(error.code).toBe("REQUEST_MISMATCH");
    expect(changed.model.calls).toEqual([]);
    expect(await readAll(inner, RUN)).toHaveLength(length);
  });

  it("resumes a journal written before the compiler (model.requested without context.compiled)", async () => {
    const journal = createMemoryJournal();
    await journal.append({ tenantId: TENANT, runId: RUN }, 0, [
      {
        type: "run.started",
        at: 0,
        data: { sessionId: "session_x", task: "t", tools: [echoTool.spec], limits: { maxTurns: 3 }, release: WRITER_RELEASE },
      },
      { type: "turn.started", at: 0, causationId: "turn_x", data: { turnId: "turn_x", index: 1 } },
      { type: "model.requested", at: 0, causationId: "turn_x", data: { turnId: "turn_x", requestHash: "0".repeat(64), messageCount: 1 } },
    ]);
    const fresh = rig([say("done")], { journal });
    const result = await fresh.harness.resume(RUN);
    expect(result.outcome?.status).toBe("completed");
    expect(fresh.model.calls).toHaveLength(1);
  });

  it("stops with CONTEXT_OVERFLOW before writing anything when mandatory context cannot fit; no constraint is dropped", async () => {
    const model = createScriptedModel([say("done")], { capabilities: { contextWindow: 1_000, maxOutputTokens: 200 } });
    const { harness, journal } = rig([], { provider: model, context: { constraints: [{ id: "constraint:long", text: "Never do this. ".repeat(400) }] } });
    const error = await rejectionOf(harness.start("t", { runId: RUN }));
    expect(error.code).toBe("CONTEXT_OVERFLOW");
    expect(error.details).toMatchObject({ what: "mandatory" });
    expect(model.calls).toEqual([]);
    expect(await journal.head({ tenantId: TENANT, runId: RUN })).toBeNull();
  });

  it("compacts a history that outgrows the window under a compaction policy, and the journal still rebuilds every turn", async () => {
    const long = (turn: number) => `${turn}: ${"the quick brown fox jumps over the lazy dog ".repeat(20)}`;
    const steps = [...Array.from({ length: 12 }, (_, turn) => callTools([{ name: "echo", args: { text: long(turn) } }])), say("done")];
    const model = createScriptedModel(steps, { capabilities: { contextWindow: 4_000, maxOutputTokens: 500 } });
    const { harness, journal } = rig([], { provider: model, maxTurns: 20, context: { compaction: { threshold: 0.6, keepRecentMessages: 4 } } });
    const result = await harness.start("echo a lot", { runId: RUN });
    expect(result.outcome?.status).toBe("completed");
    const events = await readAll(journal, RUN);
    expect(events.some((event) => event.type === "context.compiled" && event.data.compactions !== undefined)).toBe(true);
    const hashes = await requestedHashes(journal);
    for (let turn = 1; turn <= 13; turn++) expect(reconstructRequestFromEvents(events, turn).requestHash).toBe(hashes[turn - 1]);
    expect(model.calls.map(requestHash)).toEqual(hashes);
  });
});
