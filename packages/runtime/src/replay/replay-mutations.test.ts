// The mutation check, 5 of 5: one change at a time — a recorded model response, a recorded tool
// outcome (each re-chained, so the record verifies), a compiler setting, a fold rule and a
// policy rule of the code replaying it — and replay names the first event that differs, at
// the seq where the change first shows.
import { createMemoryJournal } from "@yoke/journal";
import type { JournalEvent, JournalV1, RunState } from "@yoke/protocol";
import { callTools, rejectionOf, say } from "@yoke/testkit";
import { describe, expect, it, vi } from "vitest";
import { TENANT, echoTool, readAll, rig } from "../__fixtures__/harness-fixtures.js";
import { functionEngine } from "../__fixtures__/policy-fixtures.js";
import type { HarnessOptions } from "../harness-types.js";
import { replay } from "./replay.js";

// The fold rule under mutation: with `mutated.fold` on, a tool result folds into the run's
// state with its text changed. Off while the run is recorded.
const mutated = vi.hoisted(() => ({ fold: false }));
vi.mock("@yoke/protocol", async (importOriginal) => {
  const original = await importOriginal<typeof import("@yoke/protocol")>();
  class MutatedAccumulator extends original.RunStateAccumulator {
    override peek(): RunState {
      const state = super.peek();
      if (!mutated.fold) return state;
      const messages = state.messages.map((message) =>
        message.role !== "tool"
          ? message
          : {
              ...message,
              content: message.content.map((part) => ({
                ...part,
                result: { ...part.result, content: part.result.content.map((item) => (item.type === "text" ? { ...item, text: `${item.text}!` } : item)) },
              })),
            },
      );
      return { ...state, messages } as RunState;
    }
  }
  return { ...original, RunStateAccumulator: MutatedAccumulator };
});

const RUN = "run_mutation";
const steps = () => [callTools([{ name: "echo", args: { text: "hi" } }]), say("done")];
const allowEcho = () => functionEngine(() => ["allow", "allow-echo"]);

async function recorded(): Promise<JournalEvent[]> {
  const journal = createMemoryJournal();
  const { harness } = rig(steps(), { journal, policy: allowEcho() });
  expect((await harness.start("Echo hi.", { runId: RUN })).outcome?.status).toBe("completed");
  return readAll(journal, RUN);
}

/** `events` with one changed, appended to a fresh journal as drafts: the chain is rebuilt and verifies. */
async function rechained(events: readonly JournalEvent[], seq: number, change: (data: Record<string, unknown>) => unknown): Promise<JournalV1> {
  const journal = createMemoryJournal();
  const drafts = events.map(({ type, at, causationId, data }, index) => ({
    type,
    at,
    causationId,
    data: index === seq ? (change(structuredClone(data) as Record<string, unknown>) as typeof data) : data,
  }));
  await journal.append({ tenantId: TENANT, runId: RUN }, 0, drafts);
  expect((await journal.verify({ tenantId: TENANT, runId: RUN })).ok).toBe(true);
  return journal;
}

function options(overrides: Partial<HarnessOptions> = {}): HarnessOptions {
  return { provider: rig([]).model, tools: [echoTool], tenantId: TENANT, policy: allowEcho(), ...overrides };
}

const seqOf = (events: readonly JournalEvent[], type: string, nth = 1) => events.filter((event) => event.type === type)[nth - 1]!.seq;

async function divergence(journal: JournalV1, harness: HarnessOptions) {
  const error = await rejectionOf(replay({ journal, tenantId: TENANT, runId: RUN }, harness));
  expect(error).toMatchObject({ code: "REPLAY_DIVERGED" });
  return (error as { details: { seq: number; type: string; path: string } }).details;
}

describe("replay names the first diverging event of each mutation (5 of 5)", () => {
  it("the unchanged record replays with 0 divergences (the baseline every mutation departs from)", async () => {
    const events = await recorded();
    const journal = await rechained(events, -1, (data) => data);
    expect((await replay({ journal, tenantId: TENANT, runId: RUN }, options())).events).toBe(events.length);
  });

  it("1. a recorded model response: the call's arguments change, so its admission does (the action.admitted after it)", async () => {
    const events = await recorded();
    const responded = seqOf(events, "model.responded");
    const journal = await rechained(events, responded, (data) => {
      const call = (data.response as { content: { rawArguments: string }[] }).content[0]!;
      call.rawArguments = JSON.stringify({ text: "ho" });
      return data;
    });
    const details = await divergence(journal, options());
    expect(details).toMatchObject({ seq: seqOf(events, "action.admitted"), type: "action.admitted" });
    expect(details.seq).toBe(responded + 1);
  });

  it("2. a recorded tool outcome: the result the model is shown changes, so the next request does (turn 2's context.compiled)", async () => {
    const events = await recorded();
    const journal = await rechained(events, seqOf(events, "action.committed"), (data) => {
      (data.result as { content: { text: string }[] }).content[0]!.text = "echo: ho";
      return data;
    });
    const details = await divergence(journal, options());
    expect(details).toMatchObject({ seq: seqOf(events, "context.compiled", 2), type: "context.compiled" });
  });

  it("3. a compiler setting (temperature): the first request compiles otherwise (turn 1's context.compiled)", async () => {
    const events = await recorded();
    const journal = await rechained(events, -1, (data) => data);
    const details = await divergence(journal, options({ context: { temperature: 0.5 } }));
    expect(details).toMatchObject({ seq: seqOf(events, "context.compiled"), type: "context.compiled" });
    expect(details.path.startsWith("data.")).toBe(true);
  });

  it("4. a fold rule (a tool result folds with other text): the next request shows it (turn 2's context.compiled)", async () => {
    const events = await recorded();
    const journal = await rechained(events, -1, (data) => data);
    mutated.fold = true;
    try {
      const details = await divergence(journal, options());
      expect(details).toMatchObject({ seq: seqOf(events, "context.compiled", 2), type: "context.compiled" });
    } finally {
      mutated.fold = false;
    }
  });

  it("5. a policy rule (echo denied): the call is decided otherwise where it was admitted", async () => {
    const events = await recorded();
    const journal = await rechained(events, -1, (data) => data);
    const denyEcho = functionEngine(() => ["deny", "deny-echo"]);
    const details = await divergence(journal, options({ policy: denyEcho }));
    expect(details).toMatchObject({ seq: seqOf(events, "action.admitted"), type: "action.admitted" });
  });
});
