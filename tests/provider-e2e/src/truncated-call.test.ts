// A tool call the output limit cut (issue 11, item 4), end to end through each adapter over its
// real SDK: turn 1 is text plus a `write_file` call cut by max_tokens; the runtime must not run
// it, must not answer it with a "bad JSON" result, must not send it back as a call, and must ask
// again; turn 2 is the whole call, which runs once; turn 3 ends the run.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createMemoryJournal } from "@yoke/journal";
import { createHarness, defineTool } from "@yoke/runtime";
import { createReplayServer, readReplayFixture } from "@yoke/testkit/replay";
import { providers } from "./providers.ts";

describe.each(providers)("$name: a tool call cut by the output limit", (provider) => {
  it("is never run nor sent back; the runtime asks again and the whole call runs once", async () => {
    const server = await createReplayServer(
      ["e2e-truncated-turn-1.sse", "e2e-truncated-turn-2.sse", "e2e-turn-3.sse"].map((name) => readReplayFixture(provider.fixtures, name)),
    );
    const writes: { path: string; content: string }[] = [];
    const journal = createMemoryJournal();
    const harness = createHarness({
      journal,
      provider: provider.createProvider(server.url),
      tools: [
        defineTool({
          name: "write_file",
          description: "Write a workspace file.",
          input: z.object({ path: z.string(), content: z.string() }),
          sideEffect: "idempotent",
          execute: async (input) => {
            writes.push(input);
            return `wrote ${input.path}`;
          },
        }),
      ],
      tenantId: "tenant_truncated",
      maxTurns: 6,
    });
    const result = await harness.start("Write hello to notes.txt.");
    await server.close();

    expect(result.outcome?.status).toBe("completed");
    expect(writes).toEqual([{ path: "notes.txt", content: "hello" }]);
    expect(server.requests).toHaveLength(3);
    // The cut call never travels back as a call nor with a result: its id appears only in the note.
    for (const request of server.requests.slice(1)) {
      const body = JSON.stringify(request.body).replaceAll(`(call ${provider.truncatedCallId})`, "");
      expect(body).not.toContain(provider.truncatedCallId);
    }

    const events = [];
    // harness.events() yields the typed YokeEvent union: no parse per event.
    for await (const event of harness.events(result.runId)) events.push(event);
    const responses = events.flatMap((event) => (event.type === "model.responded" ? [event.data.response] : []));
    expect(responses[0]!.stopReason).toBe("max_tokens");
    expect(responses[0]!.content.map((part) => part.type)).toContain("tool-call-truncated");
    // The runtime's note names the cut call; nothing else but the response does: no proposal,
    // no rejection, no "bad JSON" result for it.
    const notes = events.flatMap((event) => (event.type === "input.added" && event.data.source === "output-limit" ? [event] : []));
    expect(notes).toHaveLength(1);
    expect(JSON.stringify(notes[0]!.data.content)).toContain(`write_file (call ${provider.truncatedCallId})`);
    const others = events.filter((event) => event.type !== "model.responded" && event.type !== "input.added");
    expect(JSON.stringify(others)).not.toContain(provider.truncatedCallId);
    expect(events.filter((event) => event.type === "tool.completed" || event.type === "action.committed")).not.toHaveLength(0);
  });
});
