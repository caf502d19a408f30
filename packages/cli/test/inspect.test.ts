// The run model over journals written by real runs (real harness, SQLite, scripted model).
import { afterAll, describe, expect, it } from "vitest";
import { createSqliteJournal } from "@yoke/journal";
import { inspectRun, listRuns, loadRunView, readRun } from "../src/inspect/index.ts";
import { openStore } from "../src/store/open-store.ts";
import { completedRun, crashedAndResumedRun, crashedRun, readEvents, removeJournals, tamperedRun } from "./support/journals.ts";

afterAll(removeJournals);

describe("inspectRun", () => {
  it("a completed run: header, turns with manifests, responses, usage and cost, actions with their state strip", async () => {
    const view = inspectRun(await readEvents(await completedRun()));
    expect(view.header).toMatchObject({
      tenantId: "tenant_cli",
      runId: "run_cli",
      status: "finished",
      outcome: { status: "verified_success" },
      turns: 5,
      events: 33,
    });
    expect(view.turns.map((turn) => turn.index)).toEqual([0, 1, 2, 3, 4, 5]);
    const first = view.turns[1]!.modelCalls[0]!;
    expect(first.requestHash).toMatch(/^[0-9a-f]{64}$/);
    expect(first.manifest).toMatchObject({ counts: { included: 3, truncated: 0, omitted: 0 }, trust: { system: 2, user: 1 }, kept: 0 });
    expect(first.manifest!.allocation.used).toBeGreaterThan(0);
    expect(first.response).toMatchObject({ stopReason: "tool_use", usage: { inputTokens: 350, outputTokens: 18 } });
    expect(first.response!.parts[0]).toMatchObject({ type: "tool-call", toolName: "read_file" });
    // USD 3/M input, 15/M output: 350 × 3 + 18 × 15 = 1320 micro-dollars.
    expect(view.turns[1]).toMatchObject({ cost: 1320, currency: "USD" });
    expect(view.usage).toMatchObject({ inputTokens: 2520, outputTokens: 132, cost: 9540, currency: "USD" });
    expect(view.turns[2]!.rejections).toMatchObject([{ toolName: "write_file", code: "TOOL_INPUT_INVALID" }]);
    expect(view.actions.map((action) => [action.toolName, action.state, action.steps.map((step) => step.state)])).toEqual([
      ["read_file", "committed", ["proposed", "validated", "authorized", "leased", "executing", "committed"]],
      ["write_file", "committed", ["proposed", "validated", "authorized", "leased", "executing", "committed"]],
      ["run_check", "committed", ["proposed", "validated", "authorized", "leased", "executing", "committed"]],
    ]);
    expect(view.actions[0]!.result).toMatchObject({ status: "ok", text: expect.stringContaining("ship the journal") });
    expect(view.actions[0]!.attempts).toMatchObject([{ attempt: 1, outcome: "committed", reservationId: expect.stringMatching(/^reservation_/) }]);
    expect(view.verifierRuns).toMatchObject([{ verifierId: "checkCompletion", finished: { passed: true } }]);
    expect(view.budget).toMatchObject({ pricing: { id: "cli-test-prices", currency: "USD" }, open: 0 });
    expect(view.timeline).toHaveLength(33);
    expect(view.problems).toEqual([]);
    expect(view.chain).toEqual({ checked: false });
  });

  it("a crashed-and-resumed run: the write cut by SIGKILL shows executing → uncertain → reconciled → a second attempt committed", async () => {
    const resumed = await crashedAndResumedRun();
    const view = inspectRun(await readEvents(resumed));
    const write = view.actions.find((action) => action.toolName === "write_file")!;
    expect(write.steps.map((step) => step.state)).toEqual([
      "proposed",
      "validated",
      "authorized",
      "leased",
      "executing",
      "uncertain",
      "authorized",
      "leased",
      "executing",
      "committed",
    ]);
    expect(write.steps[4]!.seq).toBeLessThanOrEqual(resumed.killedAfterSeq);
    expect(write.steps[5]!.seq).toBeGreaterThan(resumed.killedAfterSeq);
    expect(write.reconciliations).toMatchObject([{ verdict: "retry_safe" }]);
    expect(write.attempts.map((attempt) => [attempt.attempt, attempt.outcome])).toEqual([
      [1, "uncertain"],
      [2, "committed"],
    ]);
    expect(view.header).toMatchObject({ status: "finished", outcome: { status: "verified_success" } });
    expect(view.problems).toEqual([]);
  });

  it("a crashed run not yet resumed is running, its write executing with no outcome", async () => {
    const view = inspectRun(await readEvents(await crashedRun()));
    expect(view.header.status).toBe("running");
    const write = view.actions.find((action) => action.toolName === "write_file")!;
    expect(write.state).toBe("executing");
    expect(write.attempts).toMatchObject([{ attempt: 1, outcome: undefined }]);
  });

  it("a tampered run is shown up to its bad seq, with the chain's failure", async () => {
    const tampered = await tamperedRun();
    const journal = await createSqliteJournal({ filename: tampered.file, readOnly: true });
    try {
      const { events, error } = await readRun(journal, tampered);
      expect(events).toHaveLength(tampered.tamperedSeq);
      expect(error?.code).toBe("JOURNAL_CHAIN_BROKEN");
      const view = await loadRunView(journal, tampered);
      expect(view.chain).toMatchObject({ checked: true, ok: false, firstBadSeq: tampered.tamperedSeq, reason: "hash_mismatch" });
      expect(view.header.events).toBe(tampered.tamperedSeq);
    } finally {
      await journal.close();
    }
  });

  it("an action's input kept once in its response (inputFromCall) is shown in full, also after a broken fold", async () => {
    const events = await readEvents(await completedRun());
    const admitted = events.filter((event) => event.type === "action.admitted");
    expect(admitted.map((event) => (event.data as { inputFromCall?: true }).inputFromCall)).toEqual([true, true, true]);
    const responded = events.filter((event) => event.type === "model.responded");
    const argumentsOf = (toolCallId: string) =>
      responded
        .flatMap((event) => (event.data as { response: { content: { toolCallId?: string; rawArguments?: string }[] } }).response.content)
        .find((part) => part.toolCallId === toolCallId)!.rawArguments!;
    const expected = admitted.map((event) => JSON.parse(argumentsOf((event.data as { toolCallId: string }).toolCallId)) as unknown);
    expect(inspectRun(events).actions.map((action) => action.input)).toEqual(expected);
    // The first turn's request names another turn: the fold breaks there; the inspector still reads each input back.
    const at = events.findIndex((event) => event.type === "model.requested");
    const broken = events.map((event, index) => (index === at ? { ...event, data: { ...event.data, turnId: "turn_elsewhere" } } : event));
    const view = inspectRun(broken);
    expect(view.problems.map((problem) => problem.seq)).toEqual([at]);
    expect(view.actions.map((action) => action.input)).toEqual(expected);
  });

  it("a run with no run.started is RUN_NOT_FOUND", () => {
    expect(() => inspectRun([])).toThrow(expect.objectContaining({ code: "RUN_NOT_FOUND" }));
  });
});

describe("listRuns", () => {
  it("lists the runs of every tenant the store names, with status, outcome and turns; filters by status", async () => {
    const crashed = await crashedRun();
    const store = await openStore(crashed.file);
    try {
      expect(await listRuns(store)).toMatchObject([{ tenantId: "tenant_cli", runId: "run_cli", status: "running", turns: 3, outcome: undefined }]);
      expect(await listRuns(store, { status: "finished" })).toEqual([]);
    } finally {
      await store.close();
    }
    const store2 = await openStore((await completedRun()).file);
    try {
      expect(await listRuns(store2, { tenantId: "tenant_cli" })).toMatchObject([{ status: "finished", outcome: "verified_success", turns: 5, events: 33 }]);
      expect(await listRuns(store2, { tenantId: "tenant_other" })).toEqual([]);
    } finally {
      await store2.close();
    }
  });

  it("lists a tampered run with its read error", async () => {
    const tampered = await tamperedRun();
    const store = await openStore(tampered.file);
    try {
      expect(await listRuns(store)).toMatchObject([
        { runId: "run_cli", events: tampered.tamperedSeq, readError: { code: "JOURNAL_CHAIN_BROKEN", atSeq: tampered.tamperedSeq } },
      ]);
    } finally {
      await store.close();
    }
  });
});
