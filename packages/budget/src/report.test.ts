import type { ChargeAttribution, PricingTable } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { recorder } from "./__fixtures__/events.js";
import { budgetReport, createBudgetLedger, formatBudgetReport, openedData } from "./index.js";

const table: PricingTable = { version: 1, id: "p", currency: "USD", models: [{ provider: "openai", model: "gpt-4.1", input: 2_000_000, output: 8_000_000 }] };
const modelCall = (runId: string, extra: Partial<ChargeAttribution> = {}): ChargeAttribution => ({ kind: "model_call", runId, turnId: "turn-1", ...extra });

/** A parent run with a discarded model call, a subagent (its child run overshoots once), a tool attempt and a call still in flight. */
function scenario(options: { childSettled: boolean }) {
  const limits = { tokens: 10_000, spend: 100_000, concurrency: 2 };
  const parent = recorder("run-p", createBudgetLedger({ budgetId: "b-p", limits }), openedData({ budgetId: "b-p", limits, pricing: table }));
  parent.reserve({ reservationId: "m1", parentId: "b-p", amounts: { tokens: 3_000, spend: 30_000 }, attribution: modelCall("run-p") });
  parent.settle("m1", { input_tokens: 1_000, output_tokens: 200, spend: 12_000 });
  parent.reserve({ reservationId: "m2", parentId: "b-p", amounts: { tokens: 2_000, spend: 20_000 }, attribution: modelCall("run-p", { discarded: true }) });
  parent.settle("m2", { input_tokens: 500, output_tokens: 100, spend: 5_000 });
  const subAttribution: ChargeAttribution = { kind: "subagent", runId: "run-p", actionId: "a1", childRunId: "run-c" };
  parent.reserve({ reservationId: "sub", parentId: "b-p", amounts: { tokens: 4_000, spend: 40_000, concurrency: 1 }, attribution: subAttribution });

  const childLimits = { tokens: 4_000, spend: 40_000 };
  const child = recorder(
    "run-c",
    createBudgetLedger({ budgetId: "b-c", limits: childLimits }),
    openedData({ budgetId: "b-c", limits: childLimits, pricing: table, parent: { runId: "run-p", actionId: "a1", reservationId: "sub" } }),
  );
  child.reserve({ reservationId: "c1", parentId: "b-c", amounts: { tokens: 2_000, spend: 20_000 }, attribution: modelCall("run-c") });
  child.settle("c1", { input_tokens: 1_500, output_tokens: 300, spend: 18_000 });
  child.reserve({ reservationId: "c2", parentId: "b-c", amounts: { tokens: 1_000, spend: 10_000 }, attribution: modelCall("run-c") });
  if (options.childSettled) {
    child.settle("c2", { input_tokens: 1_000, output_tokens: 200, spend: 11_000 }, { overshoot: true });
    child.push("run.completed", { outcome: { status: "verified_success" }, turns: 2 });
    parent.settle("sub", { tokens: 3_000, spend: 29_000 });
  }
  parent.reserve({
    reservationId: "t1",
    parentId: "b-p",
    amounts: { concurrency: 1 },
    attribution: { kind: "tool_attempt", runId: "run-p", actionId: "a2", attemptId: "x" },
  });
  parent.settle("t1", { wall_time: 500 });
  parent.reserve({ reservationId: "m3", parentId: "b-p", amounts: { tokens: 1_000, spend: 10_000 }, attribution: modelCall("run-p") });
  parent.push("run.completed", { outcome: { status: "verified_success" }, turns: 3 });
  return { parent: parent.events(), child: child.events() };
}

describe("budgetReport", () => {
  it("rebuilds per dimension, per attribution kind, discarded work, overshoots and cost per verified success from the events of a run and its child", () => {
    const { parent, child } = scenario({ childSettled: true });
    const report = budgetReport([parent, child]);
    expect(report.tasks).toBe(1);
    expect(report.verifiedSuccesses).toBe(1); // the child's verified success is not a task
    expect(report.currency).toBe("USD");
    expect(report.spend).toBe(46_000);
    expect(report.costPerVerifiedSuccess).toBe(46_000);
    expect(report.tokensPerVerifiedSuccess).toBe(4_800);
    expect(report.dimensions).toEqual([
      { dimension: "tokens", limit: 10_000, charged: 4_800, held: 1_000, remaining: 4_200 },
      { dimension: "input_tokens", limit: null, charged: 4_000, held: 0, remaining: null },
      { dimension: "output_tokens", limit: null, charged: 800, held: 0, remaining: null },
      { dimension: "spend", limit: 100_000, charged: 46_000, held: 10_000, remaining: 44_000 },
      { dimension: "wall_time", limit: null, charged: 500, held: 0, remaining: null },
      { dimension: "concurrency", limit: 2, charged: 0, held: 0, remaining: 2 },
    ]);
    // The child's calls are itemized as model calls; the subagent reservation keeps only what the child's journal does not show.
    expect(report.byKind).toEqual({
      model_call: { count: 4, charged: { tokens: 4_800, input_tokens: 4_000, output_tokens: 800, spend: 46_000 } },
      subagent: { count: 1, charged: {} },
      tool_attempt: { count: 1, charged: { wall_time: 500 } },
    });
    expect(report.discarded).toEqual({ count: 1, charged: { tokens: 600, input_tokens: 500, output_tokens: 100, spend: 5_000 } });
    expect(report.overshoots).toEqual([{ runId: "run-c", reservationId: "c2", kind: "model_call", excess: { tokens: 200, spend: 1_000 } }]);
    expect(report.runs.map((run) => [run.runId, run.parent?.reservationId ?? null, run.outcome])).toEqual([
      ["run-p", null, "verified_success"],
      ["run-c", "sub", "verified_success"],
    ]);
    expect(report.runs[1]!.dimensions.find((row) => row.dimension === "tokens")).toEqual({
      dimension: "tokens",
      limit: 4_000,
      charged: 3_000,
      held: 0,
      remaining: 1_000,
    });
    // One flat array holding both runs' events gives the same report.
    expect(budgetReport([...parent, ...child])).toEqual(report);
  });

  it("reads reservations and settlements carried by the work's own events exactly like budget.reserved / budget.settled", () => {
    const { parent, child } = scenario({ childSettled: true });
    // What a runtime journals: model calls and tool attempts on model.requested/responded and action.admitted/committed.
    const carrierOf = { model_call: ["model.requested", "model.responded"], tool_attempt: ["action.admitted", "action.committed"] } as const;
    const kinds = new Map<string, keyof typeof carrierOf>();
    const carry = (events: typeof parent) =>
      events.map((event) => {
        if (event.type === "budget.reserved" && event.data.attribution.kind in carrierOf) {
          kinds.set(event.data.reservationId, event.data.attribution.kind as keyof typeof carrierOf);
          return {
            ...event,
            type: carrierOf[event.data.attribution.kind as keyof typeof carrierOf][0],
            data: { reserved: event.data },
          } as unknown as typeof event;
        }
        const kind = event.type === "budget.settled" ? kinds.get(event.data.reservationId) : undefined;
        if (kind === undefined) return event;
        return { ...event, type: carrierOf[kind][1], data: { settled: event.data } } as unknown as typeof event;
      });
    const carried = [carry(parent), carry(child)];
    expect(
      carried
        .flat()
        .filter((event) => event.type === "budget.reserved")
        .map((event) => event.type === "budget.reserved" && event.data.attribution.kind),
    ).toEqual(["subagent"]);
    expect(budgetReport(carried)).toEqual(budgetReport([parent, child]));
  });

  it("counts a child mid-run inside its parent's reservation: its charges as charged, the rest of the hold as held", () => {
    const { parent, child } = scenario({ childSettled: false });
    const report = budgetReport([parent, child]);
    const tokens = report.dimensions.find((row) => row.dimension === "tokens");
    // Parent: m1 1,200 + m2 600 charged; sub holds 4,000 of which the child charged 1,800; m3 holds 1,000.
    expect(tokens).toEqual({ dimension: "tokens", limit: 10_000, charged: 3_600, held: 2_200 + 1_000, remaining: 3_200 });
    expect(report.dimensions.find((row) => row.dimension === "concurrency")).toEqual({ dimension: "concurrency", limit: 2, charged: 0, held: 1, remaining: 1 });
    // Without the child's journal, the parent's hold is all there is.
    const alone = budgetReport(parent).dimensions.find((row) => row.dimension === "tokens");
    expect(alone).toEqual({ dimension: "tokens", limit: 10_000, charged: 1_800, held: 5_000, remaining: 3_200 });
  });

  it("the headline is null without a verified success, and divides over tasks that verifiably succeeded only", () => {
    const run = (runId: string, status: string, spend: number) => {
      const r = recorder(runId, createBudgetLedger({ budgetId: `b-${runId}`, limits: { spend: 100 } }));
      r.reserve({ reservationId: "m", parentId: `b-${runId}`, amounts: { spend: 100 }, attribution: modelCall(runId) });
      r.settle("m", { spend });
      r.push("run.completed", { outcome: status === "verification_failed" ? { status, reason: "tests failed" } : { status }, turns: 1 });
      return r.events();
    };
    const failed = budgetReport([run("r1", "verification_failed", 30), run("r2", "completed", 40)]);
    expect([failed.tasks, failed.verifiedSuccesses, failed.spend, failed.costPerVerifiedSuccess]).toEqual([2, 0, 70, null]);
    const mixed = budgetReport([run("r1", "verification_failed", 30), run("r2", "verified_success", 40), run("r3", "verified_success", 31)]);
    expect([mixed.tasks, mixed.verifiedSuccesses, mixed.spend, mixed.costPerVerifiedSuccess]).toEqual([3, 2, 101, 51]);
    expect(mixed.currency).toBeNull();
    expect(mixed.dimensions).toEqual([{ dimension: "spend", limit: 300, charged: 101, held: 0, remaining: 199 }]);
    expect(budgetReport([]).tasks).toBe(0);
  });

  it("formatBudgetReport prints the headline and the tables", () => {
    const { parent, child } = scenario({ childSettled: true });
    expect(formatBudgetReport(budgetReport([parent, child]))).toMatchInlineSnapshot(`
      "Budget: 1 task, 1 verified success
      Cost per verified success: USD 0.046000 (46000 micro-units), 4800 tokens

      dimension       limit  charged   held  remaining
      tokens          10000     4800   1000       4200
      input_tokens        -     4000      0          -
      output_tokens       -      800      0          -
      spend          100000    46000  10000      44000
      wall_time           -      500      0          -
      concurrency         2        0      0          2

      attribution   charges  tokens  input_tokens  output_tokens  spend  wall_time
      model_call          4    4800          4000            800  46000          0
      subagent            1       0             0              0      0          0
      tool_attempt        1       0             0              0      0        500

      Discarded work: 1 charge (tokens 600, input_tokens 500, output_tokens 100, spend 5000)
      Overshoots: run-c/c2 (model_call) +tokens 200, spend 1000"
    `);
    expect(formatBudgetReport(budgetReport([]))).toMatchInlineSnapshot(`
      "Budget: 0 tasks, 0 verified successes
      Cost per verified success: n/a (no verified success; spend 0.000000 spent)

      (no budget dimensions)

      Discarded work: 0 charges (nothing)
      Overshoots: none"
    `);
  });
});
