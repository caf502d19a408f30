import { createMemoryJournal } from "@yoke/journal";
import { YokeError, parseYokeEvent, type JournalV1, type Message } from "@yoke/protocol";
import { callTools, createScriptedModel, refuse, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { SimulatedCrash, TENANT, crashingJournal, readAll, rejectionOf, rig } from "../__fixtures__/harness-fixtures.js";
import { reconstructRequest } from "../reconstruct-request.js";
import { SESSION_STREAM_SUFFIX } from "./session-stream.js";

const SESSION = "session_chat";

function texts(messages: readonly Message[]): string[] {
  return messages.map((message) => {
    if (message.role === "system") return `system: ${message.content}`;
    if (message.role === "tool")
      return `tool: ${message.content.map((part) => part.result.content.map((item) => (item.type === "text" ? item.text : "")).join("")).join("|")}`;
    return `${message.role}: ${message.content.map((part) => (part.type === "text" ? part.text : part.type === "tool-call" ? `call ${part.toolName}` : part.type)).join("|")}`;
  });
}

async function stream(journal: JournalV1): Promise<string[]> {
  return (await readAll(journal, `${SESSION}${SESSION_STREAM_SUFFIX}`)).map((event) => {
    const typed = parseYokeEvent(event);
    return typed.type === "session.appended" ? typed.data.runId : typed.type;
  });
}

describe("sessions", () => {
  it("a second run continues the first: its request holds the first exchange (tool call and result included), and is rebuilt byte for byte", async () => {
    const journal = createMemoryJournal();
    const first = rig([callTools([{ name: "echo", args: { text: "hi" } }]), say("I echoed hi.")], { journal });
    const a = await first.harness.start("Echo hi.", { sessionId: SESSION, runId: "run_a" });
    expect(a.outcome?.status).toBe("completed");

    const second = rig([say("You asked me to echo hi.")], { journal, idStart: 100 });
    const b = await second.harness.start("What did I ask?", { sessionId: SESSION, runId: "run_b" });
    expect(b.outcome?.status).toBe("completed");
    const request = second.model.calls[0]!;
    expect(texts(request.messages.filter((message) => message.role !== "system"))).toEqual([
      "user: Echo hi.",
      "assistant: call echo",
      // A tool output is data, delimited and labelled with the item it came from: here the first run's.
      expect.stringMatching(/^tool: ⟦data:\w+ trust="tool_output" source="history:2"⟧\necho: hi\n⟦\/data:\w+⟧$/),
      "assistant: I echoed hi.",
      "user: What did I ask?",
    ]);
    expect(b.state.sessionId).toBe(SESSION);
    expect(b.state.continues).toEqual([{ runId: "run_a", length: a.state.length, headHash: a.state.headHash }]);
    expect(await stream(journal)).toEqual(["run.started", "run_a", "run_b"]);

    const rebuilt = await reconstructRequest(journal, { tenantId: TENANT, runId: "run_b" }, 1);
    expect(rebuilt.request).toEqual(request);
  });

  it("an earlier run's long exchange is compacted in the next run's context like its own messages, and every request still rebuilds", async () => {
    const journal = createMemoryJournal();
    const long = (turn: number) => `${turn}: ${"the quick brown fox jumps over the lazy dog ".repeat(20)}`;
    const capabilities = { capabilities: { contextWindow: 4_000, maxOutputTokens: 500 } };
    const options = { journal, maxTurns: 20, context: { compaction: { threshold: 0.6, keepRecentMessages: 4 } } };
    const firstSteps = [...Array.from({ length: 6 }, (_, turn) => callTools([{ name: "echo", args: { text: long(turn) } }])), say("echoed")];
    await rig([], { ...options, provider: createScriptedModel(firstSteps, capabilities) }).harness.start("echo a lot", { sessionId: SESSION, runId: "run_a" });
    const model = createScriptedModel([callTools([{ name: "echo", args: { text: long(99) } }]), say("done")], capabilities);
    const b = await rig([], { ...options, provider: model, idStart: 100 }).harness.start("once more", { sessionId: SESSION, runId: "run_b" });
    expect(b.outcome?.status).toBe("completed");
    const compacted = (await readAll(journal, "run_b"))
      .map(parseYokeEvent)
      .flatMap((event) => (event.type === "context.compiled" ? (event.data.compactions ?? []) : []));
    expect(JSON.stringify(compacted)).toContain("history:");
    for (const [index, request] of model.calls.entries()) {
      expect((await reconstructRequest(journal, { tenantId: TENANT, runId: "run_b" }, index + 1)).request).toEqual(request);
    }
  });

  it("a session run resumed in a fresh harness after a crash asks the model exactly what it would have", async () => {
    const journal = createMemoryJournal();
    await rig([say("Paris.")], { journal }).harness.start("Capital of France?", { sessionId: SESSION, runId: "run_a" });
    const crashed = rig([callTools([{ name: "echo", args: { text: "x" } }])], { journal: crashingJournal(journal, 2, "lost"), idStart: 100 });
    expect(await rejectionOf(crashed.harness.start("And Germany?", { sessionId: SESSION, runId: "run_b" }))).toBeInstanceOf(SimulatedCrash);
    const fresh = rig([callTools([{ name: "echo", args: { text: "x" } }]), say("Berlin.")], { journal, idStart: 200 });
    const resumed = await fresh.harness.resume("run_b");
    expect(resumed.outcome?.status).toBe("completed");
    expect(texts(fresh.model.calls[0]!.messages.filter((message) => message.role !== "system")).slice(0, 3)).toEqual([
      "user: Capital of France?",
      "assistant: Paris.",
      "user: And Germany?",
    ]);
    for (const [index, request] of fresh.model.calls.entries()) {
      expect((await reconstructRequest(journal, { tenantId: TENANT, runId: "run_b" }, index + 1)).request).toEqual(request);
    }
  });

  it("a list of user messages: the first is the task, the rest are input.added (source user) in the first transaction", async () => {
    const { harness, journal, model } = rig([say("ok")]);
    await harness.start(
      [
        { role: "user", content: "Here is the report." },
        {
          role: "user",
          content: [
            { type: "text", text: "Summarize it." },
            { type: "text", text: "One line." },
          ],
        },
      ],
      { runId: "run_list" },
    );
    expect(texts(model.calls[0]!.messages.filter((message) => message.role !== "system"))).toEqual([
      "user: Here is the report.",
      "user: Summarize it.|One line.",
    ]);
    expect(journal.appends[0]).toEqual(["run.started", "input.added", "turn.started", "context.compiled", "model.requested"]);
  });

  it.each([
    [42, "start: input must be a string or a list of user messages, not number"],
    [[], "start: input is an empty list; give at least one user message"],
    [[{ role: "assistant", content: "x" }], 'start: input[0].role must be "user", not "assistant"'],
    [[{ role: "user", content: "a" }, { role: "user" }], "start: input[1].content must be a string or a list of parts, not undefined"],
    [
      [{ role: "user", content: [{ type: "image", url: "x" }] }],
      'start: input[0].content[0].mediaType must be a media type such as "image/png", not undefined',
    ],
    [[{ role: "user", content: [{ type: "video", url: "x" }] }], 'start: input[0].content[0].type must be "text", "image" or "file", not "video"'],
    [[{ role: "user", content: [{ type: "text", text: 3 }] }], "start: input[0].content[0].text must be a string, not number"],
    [[{ role: "user", content: [] }], "start: input[0].content is an empty list of parts"],
  ])("bad input %j is CONFIG_INVALID naming what is wrong", async (input, message) => {
    const { harness, journal } = rig([]);
    const error = await rejectionOf(harness.start(input as never));
    expect(YokeError.hasCode(error, "CONFIG_INVALID") && error.message).toBe(message);
    expect(journal.appends).toEqual([]);
  });

  it("a run started without a sessionId is a session of one that a later send continues (found once by its run)", async () => {
    const journal = createMemoryJournal();
    const a = await rig([say("Paris.")], { journal }).harness.start("Capital of France?", { runId: "run_a" });
    const second = rig([say("Berlin.")], { journal, idStart: 100 });
    await second.harness.start("And Germany?", { sessionId: a.state.sessionId, runId: "run_b" });
    expect(texts(second.model.calls[0]!.messages.filter((message) => message.role !== "system"))).toEqual([
      "user: Capital of France?",
      "assistant: Paris.",
      "user: And Germany?",
    ]);
  });

  it("a send while the session's last run waits for a person is SESSION_BUSY naming it; the run's own lease and outcome are untouched", async () => {
    const journal = createMemoryJournal();
    const first = rig([refuse("I cannot.")], { journal });
    const waiting = await first.harness.start("Do the thing.", { sessionId: SESSION, runId: "run_a" });
    expect(waiting.waiting).toBeDefined();
    const second = rig([], { journal, idStart: 100 });
    const error = await rejectionOf(second.harness.start("Next.", { sessionId: SESSION, runId: "run_b" }));
    expect(YokeError.hasCode(error, "SESSION_BUSY") && { details: error.details, retryable: error.retryable }).toEqual({
      details: { tenantId: TENANT, sessionId: SESSION, runId: "run_a", phase: "responded" },
      retryable: true,
    });
    expect(await journal.head({ tenantId: TENANT, runId: "run_b" })).toBeNull();
  });

  it("a rebuild refuses (SESSION_MISMATCH) when the run a session run continues no longer matches its pin", async () => {
    const journal = createMemoryJournal();
    await rig([say("one")], { journal }).harness.start("First.", { sessionId: SESSION, runId: "run_a" });
    await rig([say("two")], { journal, idStart: 100 }).harness.start("Second.", { sessionId: SESSION, runId: "run_b" });
    // Another journal holding run_b but a different run_a: the pin no longer matches.
    const other = createMemoryJournal();
    await rig([say("uno")], { journal: other }).harness.start("First.", { sessionId: SESSION, runId: "run_a" });
    const events = await readAll(journal, "run_b");
    await other.append(
      { tenantId: TENANT, runId: "run_b" },
      0,
      events.map(({ type, at, causationId, data }) => ({ type, at, causationId, data })),
    );
    const error = await rejectionOf(reconstructRequest(other, { tenantId: TENANT, runId: "run_b" }, 1));
    expect(YokeError.hasCode(error, "SESSION_MISMATCH") && error.details).toMatchObject({ runId: "run_b", previousRunId: "run_a" });
  });
});
