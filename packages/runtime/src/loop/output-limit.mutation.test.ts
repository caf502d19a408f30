// output-limit.ts: the note for a cut call is journaled once. A run whose note is in the
// journal but whose next request is not (a journal cut between the two, as another writer or
// an older release could leave it) asks again without a second note. A response with several
// cut calls gets one line per call, and the escalation names them all.
// Equivalent mutants (no test can tell them apart from the code; kept here, not in the code):
// - output-limit.ts, consecutiveTruncations' `index >= 0` as `index > 0`: message 0 is the task.
// - output-limit.ts, noteAfterLastResponse: `index > 0` (message 0 is the task); `content.length === 1` as true (a note is one text part, and no other user message starts with a note's text); the last `return false` as true (never reached: the cut calls' response is an assistant message of the transcript, and the loop stops there).
import { createMemoryJournal } from "@yoke/journal";
import { parseYokeEvent, type YokeEventDraft } from "@yoke/protocol";
import { say, truncatedToolCall, type ScriptedResponse } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { capturedLogs } from "../__fixtures__/captured-logs.js";
import { TENANT, readAll, rig } from "../__fixtures__/harness-fixtures.js";

describe("the note after a cut call", () => {
  it("already journaled after the last response: not journaled again; the next request shows it once", async () => {
    const first = rig([truncatedToolCall("echo", '{"te'), say("done")]);
    const { runId } = await first.harness.start("t");
    const events = await readAll(first.journal, runId);
    const noted = events.findIndex((event) => event.type === "input.added");
    expect(events[noted - 1]?.type).toBe("model.responded");
    const journal = createMemoryJournal();
    const drafts = events.slice(0, noted + 1).map(({ type, at, causationId, data }) => ({ type, at, causationId, data }) as YokeEventDraft);
    await journal.append({ tenantId: TENANT, runId }, 0, drafts);

    const fresh = rig([say("done")], { journal });
    const { outcome } = await fresh.harness.resume(runId);
    expect(outcome).toEqual({ status: "completed" });
    fresh.model.assertConsumed();
    const types = (await readAll(journal, runId)).map((event) => event.type);
    expect(types.filter((type) => type === "input.added")).toHaveLength(1);
    const request = fresh.model.calls[0]!;
    const notes = request.messages.filter((message) => message.role === "user" && JSON.stringify(message).includes("The output token limit cut off"));
    expect(notes).toHaveLength(1);
    expect(request.messages.at(-1)).toEqual(notes[0]);
  });
});

/** One response whose two calls were both cut by the output limit. */
const twoCut = (): ScriptedResponse => ({
  content: [
    { type: "tool-call-truncated", toolCallId: "c1", toolName: "echo", rawArguments: '{"te' },
    { type: "tool-call-truncated", toolCallId: "c2", toolName: "store", rawArguments: '{"ke' },
  ],
  stopReason: "max_tokens",
});

describe("several cut calls", () => {
  it("in one response: one note, one line per cut call, in proposal order; one warning naming them", async () => {
    const { logger, said } = capturedLogs();
    const { harness, model, journal } = rig([twoCut(), say("done")], { logger });
    const { runId, outcome } = await harness.start("t");
    expect(outcome).toEqual({ status: "completed" });
    const turn = (await readAll(journal, runId)).map(parseYokeEvent).find((event) => event.type === "turn.started");
    expect(said("the output limit cut a tool call")).toEqual([
      { turnId: turn?.type === "turn.started" && turn.data.turnId, toolName: "echo, store", count: 1 },
    ]);
    const last = model.calls[1]!.messages.at(-1);
    const text = last?.role === "user" && last.content[0]?.type === "text" ? last.content[0].text : undefined;
    expect(text?.split("\n")).toEqual([
      "[runtime] The output token limit cut off your call to echo (call c1) before its arguments were complete, so it was not run. Call it again with shorter arguments (split large content over several calls).",
      "[runtime] The output token limit cut off your call to store (call c2) before its arguments were complete, so it was not run. Call it again with shorter arguments (split large content over several calls).",
    ]);
  });

  it("the escalation names every cut call of the last response", async () => {
    const { harness } = rig([twoCut(), say("never asked")], { truncatedCallRetries: 0 });
    expect((await harness.start("t")).outcome).toEqual({
      status: "escalated",
      reason:
        "the output token limit cut the model's tool call in 1 responses in a row (last: echo, store); raise the model's output limit or ask for smaller steps",
    });
  });

  it("the same cut call twice in a row (same id): the second response gets its note too, not the first one's", async () => {
    const cut = () => truncatedToolCall("echo", '{"te', { id: "c1" });
    const { harness, model, journal } = rig([cut(), cut(), say("done")]);
    const { runId, outcome } = await harness.start("t");
    expect(outcome).toEqual({ status: "completed" });
    model.assertConsumed();
    const types = (await readAll(journal, runId)).map((event) => event.type);
    expect(types.filter((type) => type === "input.added")).toHaveLength(2);
    expect(model.calls[2]!.messages.at(-1)?.role).toBe("user");
  });
});
