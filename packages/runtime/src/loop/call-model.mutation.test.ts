// call-model.ts: a response that breaks the ModelResponse contract fails the run with
// PROVIDER_RESPONSE_INVALID, saying so and carrying the schema's error as its cause; a response
// whose calls do not fit the budget has each call rejected with the message the model reads.
// Equivalent mutants (no test can tell them apart from the code; kept here, not in the code):
// - call-model.ts, the `action.proposed` test of `waits` as false: a held call is held behind a call of the same batch parked for approval, whose `action.approval_requested` is in the drafts too.
import { createMemoryJournal } from "@yoke/journal";
import { parseYokeEvent, type Clock, type JournalV1 } from "@yoke/protocol";
import { callTools, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { capturedLogs } from "../__fixtures__/captured-logs.js";
import { echoTool, readAll, rejectionOf, rig } from "../__fixtures__/harness-fixtures.js";
import type { Harness } from "../harness-types.js";
import { INTERRUPT_INBOX_SUFFIX } from "../interrupts.js";

describe("a response that breaks the ModelResponse contract", () => {
  it("PROVIDER_RESPONSE_INVALID: names the contract, and the schema's error is its cause", async () => {
    const { harness } = rig([{ content: [{ type: "tool-call", toolName: "echo", toolCallId: "", arguments: {} }] }]);
    const error = await rejectionOf(harness.start("t"));
    expect(error.code).toBe("PROVIDER_RESPONSE_INVALID");
    expect(error.message).toMatch(/^the provider returned a response that is not a ModelResponse: ./);
    expect(error.cause).toBeInstanceOf(Error);
    expect(error.message).toContain((error.cause as Error).message);
  });
});

// The call's latency (mutation testing, issue 17: `Math.min` for `Math.max`, and `+` for `-`, passed every test; Stryker
// reported both as timeouts, the whole suite passes on each): every other test's clock stands still.
describe("a model call's latency", () => {
  it("is the time the call took on the harness's clock, journaled with the response", async () => {
    let now = 5_000;
    const clock: Clock = { specificationVersion: "v1", now: () => now };
    const { harness, journal } = rig(
      [
        () => {
          now += 250;
          return say("done");
        },
      ],
      { clock },
    );
    const { runId, outcome } = await harness.start("t");
    expect(outcome).toEqual({ status: "completed" });
    const responded = (await readAll(journal, runId)).map(parseYokeEvent).flatMap((event) => (event.type === "model.responded" ? [event.data] : []));
    expect(responded.map((data) => data.latencyMs)).toEqual([250]);
  });
});

// endExhausted's message (mutation testing, issue 17: emptied, it survived; the budget tests checked only the code).
describe("a response whose calls do not fit the budget", () => {
  it("each call is rejected BUDGET_EXHAUSTED, its result saying which budget and its limit, and that it did not run", async () => {
    const { harness, journal } = rig(
      [
        callTools([
          { name: "echo", args: { text: "a" } },
          { name: "echo", args: { text: "b" } },
        ]),
      ],
      { tools: [echoTool], budget: { limits: { tool_ops: 1 } } },
    );
    const { runId, outcome, state } = await harness.start("t");
    expect(outcome).toMatchObject({ status: "budget_exhausted", budget: "tool_ops", limit: 1 });
    const rejected = (await readAll(journal, runId)).map(parseYokeEvent).flatMap((event) => (event.type === "tool.rejected" ? [event.data] : []));
    const message = "the run's budget has no room for this call (tool_ops, limit 1); it did not run";
    expect(rejected).toMatchObject([
      { turnId: state.currentTurnId, toolName: "echo", code: "BUDGET_EXHAUSTED", result: { status: "error", error: { code: "BUDGET_EXHAUSTED", message } } },
      { turnId: state.currentTurnId, toolName: "echo", code: "BUDGET_EXHAUSTED", result: { status: "error", error: { code: "BUDGET_EXHAUSTED", message } } },
    ]);
    expect(state.actions).toEqual([]);
  });
});

// callModel's first look at its interrupt (mutation testing, issue 17: as false, the whole suite passed; Stryker reported a
// timeout): a cancel sent through the driving harness after the loop last read the inbox, before the model is asked.
describe("a cancel sent through the driving harness just before the model call", () => {
  it("ends the run cancelled without asking the model: no attempt, no model.failed", async () => {
    const inner = createMemoryJournal();
    let harness: Harness | undefined;
    let sent = false;
    // The loop's first read of the inbox (the run in awaiting_response) answers with the head from before the cancel,
    // which the driving harness appends (aborting the run's live controller) in between.
    const journal: JournalV1 = {
      ...inner,
      leases: inner.leases,
      append: (scope, expectedSeq, drafts, options) => inner.append(scope, expectedSeq, drafts, options),
      read: (scope, options) => inner.read(scope, options),
      verify: (scope) => inner.verify(scope),
      listRuns: (tenantId) => inner.listRuns(tenantId),
      close: () => inner.close(),
      async head(scope) {
        const head = await inner.head(scope);
        if (!sent && scope.runId === `run_late${INTERRUPT_INBOX_SUFFIX}`) {
          sent = true;
          await harness!.interrupt("run_late", { cancel: "operator stop" });
        }
        return head;
      },
    };
    const { logger, said } = capturedLogs();
    const rigged = rig([say("unused")], { journal, logger });
    harness = rigged.harness;
    const { outcome } = await harness.start("t", { runId: "run_late" });
    expect(sent).toBe(true);
    expect(outcome).toEqual({ status: "cancelled", reason: "operator stop" });
    expect(rigged.model.remaining).toBe(1);
    expect(rigged.journal.appends.at(-1)).toEqual(["interrupt.landed", "run.completed"]);
    expect(said("model call cancelled by an interrupt")).toEqual([{ interruptId: expect.stringMatching(/^interrupt_/), attempt: undefined }]);
  });
});
