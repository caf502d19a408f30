import { createMemoryJournal } from "@yoke/journal";
import { EVENT_SCHEMA_VERSION, RunStateAccumulator, YokeError, type JournalV1, type YokeEventDraft } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { createRunFacts } from "../loop/run-facts.js";
import { createCompiledContext } from "../compiled-context.js";
import { silentLogger } from "../logger.js";
import { createLiveFold, type RunContext } from "../run-context.js";
import { Turn, commitTurn } from "./turn.js";

const scope = { tenantId: "tenant_fold", runId: "run_fold" };

const runStarted: YokeEventDraft = {
  type: "run.started",
  at: 1,
  causationId: null,
  data: { sessionId: "session_1", task: "t", tools: [], limits: { maxTurns: 3 }, release: { runtime: "test", eventSchemaVersion: EVENT_SCHEMA_VERSION } },
};
const turnStarted: YokeEventDraft = { type: "turn.started", at: 2, causationId: null, data: { turnId: "turn_1", index: 1 } };
/** Not legal in phase `ready`: a response with no request. */
const strayResponse: YokeEventDraft = {
  type: "model.responded",
  at: 3,
  causationId: "turn_1",
  data: {
    turnId: "turn_1",
    latencyMs: 0,
    response: { content: [], stopReason: "end_turn", usage: { inputTokens: 0, outputTokens: 0 }, provider: "p", model: "m" },
  },
};

/** The parts of a run context a turn uses, over `journal`. */
function contextOver(journal: JournalV1): RunContext {
  return {
    deps: { journal, onEvent: undefined },
    scope,
    accumulator: new RunStateAccumulator(),
    signal: undefined,
    logger: silentLogger(),
    dispatchable: new Map(),
    compiled: createCompiledContext(),
    live: createLiveFold(),
    facts: createRunFacts(),
  } as unknown as RunContext;
}

/** A journal that counts appends and fails the ones `fail` names (1-based). */
function countingJournal(fail: (call: number) => boolean) {
  const inner = createMemoryJournal();
  let calls = 0;
  const journal: JournalV1 = {
    ...inner,
    append: async (target, seq, drafts) => {
      calls++;
      if (fail(calls)) throw new YokeError("JOURNAL_UNAVAILABLE", "the store is down");
      return inner.append(target, seq, drafts);
    },
  };
  return { journal, calls: () => calls };
}

describe("a turn folds drafts before they are written", () => {
  it("refuses a draft that does not follow from the state, and journals nothing", async () => {
    const { journal, calls } = countingJournal(() => false);
    const context = contextOver(journal);
    await expect(commitTurn(context, [runStarted, turnStarted, strayResponse])).rejects.toMatchObject({ code: "EVENT_INVALID" });
    expect(calls()).toBe(0);
    expect(await journal.head(scope)).toBeNull();
    // run.started and turn.started were folded: the state ran ahead of the (empty) journal, so
    // even a draft that follows from it is neither folded nor appended.
    const nextTurn: YokeEventDraft = { type: "turn.started", at: 4, causationId: null, data: { turnId: "turn_2", index: 2 } };
    await expect(commitTurn(context, [nextTurn])).rejects.toMatchObject({ code: "EVENT_INVALID" });
    expect(() => Turn.open(context).add([nextTurn])).toThrow(expect.objectContaining({ code: "EVENT_INVALID" }));
    expect(calls()).toBe(0);
    expect(context.accumulator.length).toBe(2);
  });

  it("acknowledges the stored head: the live state ends where the journal does", async () => {
    const { journal } = countingJournal(() => false);
    const context = contextOver(journal);
    const turn = Turn.open(context);
    const state = turn.add([runStarted]);
    expect(state.length).toBe(1);
    turn.add([turnStarted]);
    await turn.commit();
    const head = await journal.head(scope);
    expect(context.accumulator.peek()).toMatchObject({ length: 2, headHash: head?.hash, turns: 1, currentTurnId: "turn_1" });
  });

  it("appends what it folded, once: the drafts never leave the turn", async () => {
    const { journal, calls } = countingJournal(() => false);
    const context = contextOver(journal);
    const turn = Turn.open(context);
    turn.add([runStarted]);
    // @ts-expect-error a commit takes no drafts: it appends the ones the turn folded
    await turn.commit([{ ...runStarted }, turnStarted]);
    expect(calls()).toBe(1);
    expect((await journal.head(scope))?.length).toBe(1);
    await expect(turn.commit()).rejects.toMatchObject({ code: "INTERNAL" });
    expect(calls()).toBe(1);
  });

  it("refuses a second turn while one holds drafts not yet committed, and appends the first as it was", async () => {
    const { journal, calls } = countingJournal(() => false);
    const context = contextOver(journal);
    const first = Turn.open(context);
    first.add([runStarted]);
    expect(() => Turn.open(context)).toThrow(expect.objectContaining({ code: "INTERNAL" }));
    await first.commit();
    expect(calls()).toBe(1);
    // Committed: the next turn opens where the journal ends.
    expect(Turn.open(context).base).toBe(1);
  });

  it("after a failed append, never appends from the state that ran ahead", async () => {
    const { journal, calls } = countingJournal((call) => call === 2);
    const context = contextOver(journal);
    await commitTurn(context, [runStarted]);
    const failure = commitTurn(context, [turnStarted]);
    await expect(failure).rejects.toMatchObject({ code: "JOURNAL_UNAVAILABLE" });
    // The store is back, but this context's state includes turn.started, which is not stored.
    await expect(commitTurn(context, [turnStarted])).rejects.toMatchObject({ code: "JOURNAL_UNAVAILABLE" });
    expect(() => Turn.open(context)).toThrow(expect.objectContaining({ code: "JOURNAL_UNAVAILABLE" }));
    expect(calls()).toBe(2);
    expect((await journal.head(scope))?.length).toBe(1);
  });
});
