// output-limit.ts: the note for a cut call is journaled once. A run whose note is in the
// journal but whose next request is not (a journal cut between the two, as another writer or
// an older release could leave it) asks again without a second note.
import { createMemoryJournal } from "@yoke/journal";
import type { YokeEventDraft } from "@yoke/protocol";
import { say, truncatedToolCall } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
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
