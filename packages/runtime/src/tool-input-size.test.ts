import { RunStateAccumulator, parseYokeEvent, reduceRun } from "@yoke/protocol";
import { callTools, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { journalCutAfterResponse, readAll, rig } from "./__fixtures__/harness-fixtures.js";
import { defineTool } from "./define-tool.js";

function writer() {
  const written: number[] = [];
  const tool = defineTool({
    name: "write_file",
    description: "Writes a file.",
    input: z.object({ path: z.string(), content: z.string() }),
    sideEffect: "idempotent",
    execute: async ({ content }) => {
      written.push(content.length);
      return "written";
    },
  });
  return { tool, written };
}

const TEN_MB = 10 * 1024 * 1024;

/** Issue 33, item 4: a tool's input is bounded. */
describe("maxToolInputBytes", () => {
  it("a 10 MB argument is refused (TOOL_INPUT_TOO_LARGE) before it is journaled: the journal stays small, the tool never runs, the run goes on", async () => {
    const file = writer();
    const huge = callTools([{ name: "write_file", args: { path: "a.txt", content: "x".repeat(TEN_MB) } }]);
    const { harness, journal, model } = rig([huge, say("done")], { tools: [file.tool] });
    const { runId, outcome } = await harness.start("t");
    expect(outcome).toEqual({ status: "completed" });
    expect(file.written).toEqual([]);
    const stored = await readAll(journal, runId);
    const bytes = stored.reduce((sum, event) => sum + JSON.stringify(event).length, 0);
    expect(bytes).toBeLessThan(64 * 1024);
    const events = stored.map(parseYokeEvent);
    const started = events[0]!;
    expect(started.type === "run.started" && started.data.limits.maxToolInputBytes).toBe(1_048_576);
    const rejected = events.find((event) => event.type === "tool.rejected");
    expect(rejected?.type === "tool.rejected" && rejected.data).toMatchObject({ code: "TOOL_INPUT_TOO_LARGE", toolName: "write_file" });
    expect(rejected?.type === "tool.rejected" && rejected.data.result.error?.message).toMatch(/10485\d\d\d bytes.*1048576/);
    // The journaled call says what was left out, and the model sees the refusal paired with it.
    const responded = events.find((event) => event.type === "model.responded");
    const part = responded?.type === "model.responded" ? responded.data.response.content[0] : undefined;
    expect(part).toMatchObject({
      type: "tool-call",
      rawArguments: "{}",
      omitted: { bytes: expect.any(Number), sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
    const next = model.calls[1]!;
    expect(next.messages.at(-1)).toMatchObject({ role: "tool", content: [{ result: { error: { code: "TOOL_INPUT_TOO_LARGE" } } }] });
  });

  it("is an option, pinned in run.started: a resume judges by the run's limit, not its own; an input at the limit runs", async () => {
    const file = writer();
    const content = (bytes: number) => "y".repeat(bytes - '{"path":"a","content":""}'.length);
    const { harness, journal } = rig(
      [
        callTools([{ name: "write_file", args: { path: "a", content: content(1_000) } }]),
        callTools([{ name: "write_file", args: { path: "a", content: content(1_001) } }]),
        say("done"),
      ],
      { tools: [file.tool], maxToolInputBytes: 1_000 },
    );
    const { runId } = await harness.start("t");
    expect(file.written).toHaveLength(1);
    const codes = (await readAll(journal, runId)).map(parseYokeEvent).flatMap((event) => (event.type === "tool.rejected" ? [event.data.code] : []));
    expect(codes).toEqual(["TOOL_INPUT_TOO_LARGE"]);
    expect(() => rig([], { maxToolInputBytes: 0 })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
  });

  it("a journal from before the limit has none: its calls are judged as they were", async () => {
    const file = writer();
    const args = { path: "a", content: "z".repeat(20_000) };
    const journal = await journalCutAfterResponse(
      "run_old",
      [file.tool],
      [{ type: "tool-call", toolCallId: "c0", toolName: "write_file", rawArguments: JSON.stringify(args), arguments: args }],
    );
    const fresh = rig([say("done")], { journal, tools: [file.tool], idStart: 1_000, maxToolInputBytes: 1_000 });
    const { outcome } = await fresh.harness.resume("run_old");
    expect(outcome?.status).toBe("completed");
    expect(file.written).toEqual([20_000]);
  });
});

describe("a tool argument is journaled once", () => {
  it("a 300 KB argument: the response keeps the model's text, not its parse too; the fold gives the parse back; a resume runs it", async () => {
    const file = writer();
    const size = 300_000;
    const args = { path: "a.txt", content: "w".repeat(size) };
    const { harness, journal, model } = rig([callTools([{ name: "write_file", args }]), say("done")], { tools: [file.tool] });
    const { runId, state } = await harness.start("t");
    expect(file.written).toEqual([size]);
    const stored = await readAll(journal, runId);
    // The text the model sent, and the validated input the action runs: two copies, not three.
    const bytes = stored.reduce((sum, event) => sum + JSON.stringify(event).length, 0);
    expect(bytes).toBeLessThan(2.2 * size);
    const responded = stored.find((event) => event.type === "model.responded")!;
    const part = (responded.data as { response: { content: Record<string, unknown>[] } }).response.content[0]!;
    expect(part.rawArguments).toBe(JSON.stringify(args));
    expect(part).not.toHaveProperty("arguments");
    // What the run (and the model, next turn) sees is unchanged: the call with its parsed arguments.
    const assistant = state.messages.find((message) => message.role === "assistant");
    expect(assistant?.role === "assistant" && assistant.content[0]).toMatchObject({ type: "tool-call", arguments: args });
    const shown = model.calls[1]!.messages.find((message) => message.role === "assistant");
    expect(shown?.role === "assistant" && shown.content[0]).toMatchObject({ type: "tool-call", arguments: args, rawArguments: JSON.stringify(args) });
  });

  it("the action's input is a reference to its call, not a second copy: a 300 KB argument is journaled once, and either form folds to the same state", async () => {
    const file = writer();
    const size = 300_000;
    const args = { path: "a.txt", content: "w".repeat(size) };
    const { harness, journal } = rig([callTools([{ name: "write_file", args }]), say("done")], { tools: [file.tool] });
    const { runId } = await harness.start("t");
    expect(file.written).toEqual([size]);
    const stored = await readAll(journal, runId);
    const bytes = stored.reduce((sum, event) => sum + JSON.stringify(event).length, 0);
    expect(bytes).toBeLessThan(1.2 * size);
    const at = stored.findIndex((event) => event.type === "action.admitted");
    const { inputFromCall, ...data } = stored[at]!.data as { inputFromCall?: true };
    expect(inputFromCall).toBe(true);
    expect(data).not.toHaveProperty("input");
    // Every reader that folds sees the input as before.
    const accumulator = new RunStateAccumulator();
    const read = stored.map((event) => accumulator.apply(event));
    expect(read[at]).toMatchObject({ type: "action.admitted", data: { input: args } });
    expect(read[at]!.data).not.toHaveProperty("inputFromCall");
    // The journal as a runtime before the reference wrote it (the input in full) folds to the same state, at every length.
    const full = stored.map((event, index) => (index === at ? { ...event, data: { ...data, input: args } as typeof event.data } : event));
    for (let length = at + 1; length <= stored.length; length++) expect(reduceRun(stored.slice(0, length))).toEqual(reduceRun(full.slice(0, length)));
  });

  it("a resume admits a journaled call by reference too, and its tool gets the same input", async () => {
    const file = writer();
    const args = { path: "b.txt", content: "v".repeat(50_000) };
    const journal = await journalCutAfterResponse(
      "run_cut",
      [file.tool],
      [{ type: "tool-call", toolCallId: "c0", toolName: "write_file", rawArguments: JSON.stringify(args), arguments: args }],
    );
    const fresh = rig([say("done")], { journal, tools: [file.tool], idStart: 1_000 });
    const { outcome } = await fresh.harness.resume("run_cut");
    expect(outcome?.status).toBe("completed");
    expect(file.written).toEqual([50_000]);
    const admitted = (await readAll(journal, "run_cut")).find((event) => event.type === "action.admitted")!;
    expect(admitted.data).toMatchObject({ toolCallId: "c0", inputFromCall: true });
    expect(admitted.data).not.toHaveProperty("input");
  });
});
