// harness.stream through each adapter's real SDK over recorded wire traffic: the parts arrive
// while the run goes on, and the deltas add up to what the journal holds (each turn's text,
// each call's argument text).
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createMemoryJournal } from "@yoke/journal";
import { createHarness, defineTool, type RunStreamPart } from "@yoke/runtime";
import { createReplayServer, readReplayFixture } from "@yoke/testkit/replay";
import { providers } from "./providers.ts";

function workspaceTools(entered: () => void, released: Promise<void>) {
  const files = new Map([["notes.txt", "buy milk"]]);
  return [
    defineTool({
      name: "read_file",
      description: "Read a workspace file.",
      input: z.object({ path: z.string() }),
      sideEffect: "none",
      execute: async ({ path }) => {
        entered();
        await released;
        return files.get(path) ?? "";
      },
    }),
    defineTool({
      name: "write_file",
      description: "Write a workspace file.",
      input: z.object({ path: z.string(), content: z.string() }),
      sideEffect: "idempotent",
      execute: async ({ path, content }) => {
        files.set(path, content);
        return `wrote ${path}`;
      },
    }),
    defineTool({
      name: "list_files",
      description: "List the workspace's top-level files.",
      input: z.object({}),
      sideEffect: "none",
      execute: async () => [...files.keys()].sort().join("\n"),
    }),
  ];
}

describe.each(providers)("$name: harness.stream over the real SDK", (provider) => {
  it("streams deltas before the run ends that add up to the journaled responses", async () => {
    const server = await createReplayServer(
      ["e2e-turn-1.sse", "e2e-turn-2.sse", "e2e-turn-3.sse"].map((file) => readReplayFixture(provider.fixtures, file, { path: provider.replayPath })),
    );
    let enter!: () => void;
    let release!: () => void;
    const entered = new Promise<void>((resolve) => {
      enter = resolve;
    });
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const harness = createHarness({
      journal: createMemoryJournal(),
      provider: provider.createProvider(server.url),
      tools: workspaceTools(enter, released),
      tenantId: "tenant_stream",
      maxTurns: 6,
    });
    const stream = harness.stream("Read notes.txt, write a summary, then list the files.");
    let ended = false;
    void stream.result.then(() => {
      ended = true;
    });
    const parts: RunStreamPart[] = [];
    const iterator = stream[Symbol.asyncIterator]();
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      parts.push(next.value);
      if (next.value.type === "model-response") break;
    }
    // Turn 1's deltas and response arrived while its tool call holds the run.
    await entered;
    expect(ended).toBe(false);
    expect(parts.some((part) => part.type === "tool-call-delta")).toBe(true);
    release();
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) parts.push(next.value);
    const result = await stream.result;
    await server.close();
    expect(result.outcome?.status).toBe("completed");
    expect(parts.filter((part) => part.type === "dropped")).toEqual([]);

    const journaled: { turnId: string; text: string; calls: [string, string][] }[] = [];
    for await (const event of harness.events(result.runId)) {
      if (event.type !== "model.responded") continue;
      const { content } = event.data.response;
      journaled.push({
        turnId: event.data.turnId,
        text: content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join(""),
        calls: content.flatMap((part): [string, string][] => (part.type === "tool-call" ? [[part.toolCallId, part.rawArguments]] : [])),
      });
    }
    expect(journaled).toHaveLength(3);
    const responses = parts.flatMap((part) => (part.type === "model-response" ? [part] : []));
    expect(responses.map((response) => [response.turnId, response.text])).toEqual(journaled.map((response) => [response.turnId, response.text]));
    for (const response of journaled) {
      const deltas = parts.flatMap((part) => (part.type === "text-delta" && part.turnId === response.turnId ? [part.text] : []));
      expect(deltas.join("")).toBe(response.text);
      for (const [toolCallId, rawArguments] of response.calls) {
        const args = parts.flatMap((part) => (part.type === "tool-call-delta" && part.toolCallId === toolCallId ? [part.argumentsDelta] : []));
        expect(args.join(""), toolCallId).toBe(rawArguments);
      }
      // Each turn's deltas come before its durable response.
      const lastDelta = parts.findLastIndex((part) => (part.type === "text-delta" || part.type === "tool-call-delta") && part.turnId === response.turnId);
      expect(lastDelta).toBeLessThan(parts.findIndex((part) => part.type === "model-response" && part.turnId === response.turnId));
    }
    expect(journaled.flatMap((response) => response.calls)).toHaveLength(3);
    expect(parts.filter((part) => part.type === "tool-result")).toHaveLength(3);
    expect(parts.at(-1)).toEqual({ type: "result", result });
  });
});
