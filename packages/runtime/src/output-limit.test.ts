import { createMemoryJournal } from "@yoke/journal";
import { YokeError, canonicalJson, parseYokeEvent, toolCallsOf, type JournalV1, type Message, type ModelRequest, type RunState } from "@yoke/protocol";
import { callTools, say, truncatedToolCall, type ScriptedStep } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { SimulatedCrash, TENANT, countingTool, crashingJournal, echoTool, keyedTool, readAll, rejectionOf, rig } from "./__fixtures__/harness-fixtures.js";
import { reconstructRequestFromEvents } from "./reconstruct-request.js";

const noteFor = (toolName: string, toolCallId: string) =>
  `[runtime] The output token limit cut off your call to ${toolName} (call ${toolCallId}) before its arguments were complete, so it was not run. Call it again with shorter arguments (split large content over several calls).`;

const note = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });

/** Every call the request offers the model as one it made: a cut call is never among them. */
const offeredCalls = (request: ModelRequest) => request.messages.flatMap((message) => (message.role === "assistant" ? toolCallsOf(message) : []));

describe("a tool call cut by the output limit (tool-call-truncated)", () => {
  it("is never run nor rejected; the same turn asks again with a journaled note, and the re-asked call runs once", async () => {
    const store = countingTool("store", "idempotent");
    const { harness, model, journal } = rig(
      [
        truncatedToolCall("store", '{"key":"k', { text: "Storing it." }),
        (request) => {
          expect(request.messages.slice(-2)).toEqual([
            {
              role: "assistant",
              content: [
                { type: "text", text: "Storing it." },
                { type: "tool-call-truncated", toolCallId: "call_1", toolName: "store", rawArguments: '{"key":"k' },
              ],
            },
            note(noteFor("store", "call_1")),
          ]);
          expect(offeredCalls(request)).toEqual([]);
          return callTools([{ name: "store", args: { key: "k1" } }]);
        },
        say("done"),
      ],
      { tools: [echoTool, store.tool] },
    );
    const { runId, outcome, state } = await harness.start("store k1");
    model.assertConsumed();
    expect(outcome?.status).toBe("completed");
    expect(store.calls.map((call) => call.key)).toEqual(["k1"]);
    expect(state.turns).toBe(2);
    // The note is journaled with the request it is part of, in the same turn.
    expect(journal.appends.slice(1, 3)).toEqual([["model.responded"], ["input.added", "context.compiled", "model.requested"]]);
    const events = (await readAll(journal, runId)).map(parseYokeEvent);
    const added = events.find((event) => event.type === "input.added");
    expect(added?.type === "input.added" && added.data).toEqual({ source: "output-limit", content: [{ type: "text", text: noteFor("store", "call_1") }] });
    expect(events.filter((event) => event.type === "tool.rejected")).toEqual([]);
    const turnOf = (type: string) => events.flatMap((event) => (event.type === type && "turnId" in event.data ? [event.data.turnId] : []));
    expect(new Set(turnOf("model.requested").slice(0, 2)).size).toBe(1);

    // Turn 2's request (which shows the note) rebuilds byte for byte from the journal.
    const rebuilt = reconstructRequestFromEvents(await readAll(journal, runId), 2);
    expect(rebuilt.request.messages).toContainEqual(note(noteFor("store", "call_1")));
    expect(canonicalJson(rebuilt.request)).toBe(canonicalJson(model.calls[2]));
  });

  it("with complete calls in the same response: they run, and the note follows their results", async () => {
    const store = countingTool("store", "idempotent");
    const { harness, model } = rig(
      [
        truncatedToolCall("store", '{"ke', { calls: [{ name: "echo", args: { text: "a" } }] }),
        (request) => {
          const [assistant, results, last] = request.messages.slice(-3);
          expect(assistant?.role === "assistant" && assistant.content.map((part) => part.type)).toEqual(["tool-call", "tool-call-truncated"]);
          expect(results?.role === "tool" && results.content.map((part) => [part.toolCallId, part.result.status])).toEqual([["call_1", "ok"]]);
          expect(last).toEqual(note(noteFor("store", "call_2")));
          expect(offeredCalls(request).map((call) => call.toolCallId)).toEqual(["call_1"]);
          return callTools([{ name: "store", args: { key: "k2" } }]);
        },
        say("done"),
      ],
      { tools: [echoTool, store.tool] },
    );
    const { outcome } = await harness.start("t");
    model.assertConsumed();
    expect(outcome?.status).toBe("completed");
    expect(store.calls.map((call) => call.key)).toEqual(["k2"]);
  });

  it("after a batch whose failure is compensated, the note still comes, once, before the next request", async () => {
    const undone: string[] = [];
    const book = keyedTool("book", "reversible", async () => "booked", { compensate: async (_input, context) => void undone.push(context.actionId) });
    const pay = keyedTool("pay", "irreversible", async () => {
      throw new YokeError("TOOL_FAILED", "card declined");
    });
    const { harness, model, journal } = rig(
      [
        truncatedToolCall("book", '{"ke', {
          calls: [
            { name: "book", args: { key: "room" } },
            { name: "pay", args: { key: "card" } },
          ],
        }),
        (request) => {
          expect(request.messages.at(-1)).toEqual(note(noteFor("book", "call_3")));
          expect(
            request.messages.filter(
              (message) =>
                message.role === "user" && message.content[0]?.type === "text" && message.content[0].text.startsWith("[runtime] The output token limit"),
            ),
          ).toHaveLength(1);
          return say("done");
        },
      ],
      { tools: [book, pay] },
    );
    const { runId, outcome } = await harness.start("t");
    model.assertConsumed();
    expect(outcome?.status).toBe("completed");
    expect(undone).toHaveLength(1);
    const types = (await readAll(journal, runId)).map((event) => event.type);
    expect(types.indexOf("input.added")).toBeGreaterThan(types.indexOf("action.compensated"));
  });

  it("ends the run escalated on the third response in a row with a cut call (truncatedCallRetries 2), not in a loop", async () => {
    const cut = () => truncatedToolCall("echo", '{"text":"aaaa');
    const { harness, model, journal } = rig([cut(), cut(), cut(), say("never asked")]);
    const { runId, outcome, state } = await harness.start("t");
    expect(model.remaining).toBe(1);
    expect(outcome).toEqual({
      status: "escalated",
      reason: "the output token limit cut the model's tool call in 3 responses in a row (last: echo); raise the model's output limit or ask for smaller steps",
    });
    expect(state.turns).toBe(1);
    const types = (await readAll(journal, runId)).map((event) => event.type);
    expect(types.filter((type) => type === "input.added")).toHaveLength(2);
    expect(types.at(-1)).toBe("run.completed");
  });

  it("counts only responses in a row: one without a cut call starts the count again; truncatedCallRetries 0 ends at the first", async () => {
    const cut = () => truncatedToolCall("echo", '{"te');
    const echo = callTools([{ name: "echo", args: { text: "x" } }]);
    const steps: ScriptedStep[] = [cut(), cut(), echo, cut(), cut(), say("done")];
    const { harness, model } = rig(steps);
    expect((await harness.start("t")).outcome?.status).toBe("completed");
    model.assertConsumed();

    const strict = rig([cut(), say("never asked")], { truncatedCallRetries: 0 });
    expect((await strict.harness.start("t")).outcome?.status).toBe("escalated");
    await expect(async () => rig([], { truncatedCallRetries: -1 })).rejects.toMatchObject({ code: "CONFIG_INVALID" });
  });
});

describe("a crash around a cut call", async () => {
  const RUN = "run_cut";
  const script = (): ScriptedStep[] => [
    truncatedToolCall("store", '{"key":"k', { text: "Storing." }),
    callTools([{ name: "store", args: { key: "k1" } }]),
    truncatedToolCall("store", '{"ke', { calls: [{ name: "echo", args: { text: "a" } }] }),
    callTools([{ name: "store", args: { key: "k2" } }]),
    say("done"),
  ];
  const comparable = (state: RunState) => ({ messages: state.messages, outcome: state.outcome, turns: state.turns });
  const store = countingTool("store", "idempotent");
  const tools = [echoTool, store.tool];
  const reference = rig(script(), { tools });
  const expected = await reference.harness.start("store", { runId: RUN });
  reference.model.assertConsumed();
  const boundaries = reference.journal.appends.length;

  const answered = async (journal: JournalV1) => (await readAll(journal, RUN)).filter((event) => event.type === "model.responded").length;

  it.each(Array.from({ length: boundaries }, (_, allowed) => (["lost", "written"] as const).map((mode) => ({ allowed, mode }))).flat())(
    "crash on append $allowed + 1 ($mode): the resumed run journals the same notes and ends like the uninterrupted one",
    async ({ allowed, mode }) => {
      const journal = createMemoryJournal();
      const crashed = rig(script(), { journal: crashingJournal(journal, allowed, mode), tools });
      expect(await rejectionOf(crashed.harness.start("store", { runId: RUN }))).toBeInstanceOf(SimulatedCrash);
      const fresh = rig(script().slice(await answered(journal)), { journal, tools, idStart: 1_000 });
      const exists = (await journal.head({ tenantId: TENANT, runId: RUN })) !== null;
      const result = exists ? await fresh.harness.resume(RUN) : await fresh.harness.start("store", { runId: RUN });
      fresh.model.assertConsumed();
      expect(comparable(result.state)).toEqual(comparable(expected.state));
      expect((await journal.verify({ tenantId: TENANT, runId: RUN })).ok).toBe(true);
    },
  );
});
