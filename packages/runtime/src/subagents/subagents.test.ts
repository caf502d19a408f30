import { createMemoryJournal } from "@yoke/journal";
import { sequentialIdSource } from "@yoke/protocol";
import { callTools, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { crashingJournal } from "../__fixtures__/harness-fixtures.js";
import { CLAIMS, claimsCiting, eventsOf, harnessOf, routed, spawn } from "./__fixtures__/subagent-rig.js";

describe("subagents", () => {
  it("a spawn starts a child run in its own stream, linked by run, action, context revision and reservation, with the declared tools; its typed result is the action's output", async () => {
    const journal = createMemoryJournal();
    const { provider } = routed(
      [spawn("check that echo works"), say("the subagent says echo works")],
      [
        { ...callTools([{ name: "echo", args: { text: "ping" }, id: "call_echo" }]), usage: { inputTokens: 30, outputTokens: 5 } },
        { ...say(CLAIMS), usage: { inputTokens: 50, outputTokens: 20 } },
      ],
    );
    const harness = harnessOf(provider, journal);
    const result = await harness.start("find out whether echo works", { runId: "run_parent" });
    expect(result.outcome?.status).toBe("completed");
    const parent = await eventsOf(journal, "run_parent");
    const admitted = parent.find((event) => event.type === "action.admitted");
    const actionId = admitted?.type === "action.admitted" ? admitted.data.actionId : "";
    const reserved = parent.find((event) => event.type === "budget.reserved" && event.data.attribution.kind === "subagent");
    expect(reserved?.type === "budget.reserved" && reserved.data).toMatchObject({
      amounts: { tokens: 100_000, turns: 5, fan_out: 1, tool_ops: 1, concurrency: 1 },
      attribution: { kind: "subagent", actionId, childRunId: expect.stringMatching(/^run_sub-/) },
    });
    const childRunId = reserved?.type === "budget.reserved" ? reserved.data.attribution.childRunId! : "";
    const child = await eventsOf(journal, childRunId);
    const started = child[0]!;
    // Forked from the request the parent's model answered with the spawn (its first), sharing nothing.
    const asked = parent.find((event) => event.type === "model.requested");
    const compiled = parent.find((event) => event.type === "context.compiled");
    expect(started.type === "run.started" && started.data.parent).toEqual({
      runId: "run_parent",
      actionId,
      contextRevision: 0,
      fork: {
        parentRevision: compiled?.type === "context.compiled" ? compiled.data.revision : -1,
        parentRequestHash: asked?.type === "model.requested" ? asked.data.requestHash : "",
        shared: [],
        evidence: [],
      },
    });
    expect(started.type === "run.started" && started.data.tools.map((tool) => tool.name)).toEqual(["echo"]);
    const opened = child[1]!;
    expect(opened.type === "budget.opened" && opened.data).toMatchObject({
      limits: { tokens: 100_000, turns: 5 },
      parent: { runId: "run_parent", actionId, reservationId: reserved?.type === "budget.reserved" ? reserved.data.reservationId : "" },
    });
    // The reservation was durable before the child's first event.
    expect(reserved!.at).toBeLessThanOrEqual(started.at);
    const committed = parent.find((event) => event.type === "action.committed");
    expect(committed?.type === "action.committed" && committed.data.result.output).toEqual({ childRunId, result: JSON.parse(CLAIMS) });
    // The parent's subagent reservation settles to what the child was charged (plus the spawn itself).
    const settled = parent.find(
      (event) => event.type === "budget.settled" && reserved?.type === "budget.reserved" && event.data.reservationId === reserved.data.reservationId,
    );
    // The child: 2 turns, 105 tokens, 1 echo; the spawn: one child, one tool operation.
    expect(settled?.type === "budget.settled" && settled.data.charged).toEqual({
      turns: 2,
      tokens: 105,
      input_tokens: 80,
      output_tokens: 25,
      tool_ops: 2,
      fan_out: 1,
    });
  });

  it("a child's claims go through its own gate: evidence it never produced is sent back to it, and past the retries the spawn fails SUBAGENT_FAILED", async () => {
    const journal = createMemoryJournal();
    const { provider, childModel } = routed(
      [spawn("check that echo works"), say("the subagent could not show it")],
      [
        callTools([{ name: "echo", args: { text: "ping" }, id: "call_echo" }]),
        say(claimsCiting("call:call_never_made")),
        say(claimsCiting("the README says so")),
        say(claimsCiting("action:action_ghost")),
      ],
    );
    const result = await harnessOf(provider, journal).start("find out whether echo works", { runId: "run_parent" });
    expect(result.outcome?.status).toBe("completed");
    childModel.assertConsumed();
    const parent = await eventsOf(journal, "run_parent");
    const failed = parent.find((event) => event.type === "action.failed");
    expect(failed?.type === "action.failed" && failed.data.result.error?.code).toBe("SUBAGENT_FAILED");
    const started = parent.find((event) => event.type === "action.admitted");
    const childRunId = `run_sub-${started?.type === "action.admitted" ? started.data.actionId.slice("action_".length) : ""}`;
    const child = await eventsOf(journal, childRunId);
    const verdicts = child.flatMap((event) => (event.type === "verifier.finished" ? [event.data.verdict] : []));
    expect(verdicts.map((verdict) => [verdict.verifierId, verdict.passed])).toEqual([
      ["subagent-claims-evidence", false],
      ["subagent-claims-evidence", false],
      ["subagent-claims-evidence", false],
    ]);
    expect(verdicts[0]!.reason).toContain("[call:call_never_made] is not in the journal");
    expect(verdicts[1]!.reason).toContain('"the README says so"');
    expect(verdicts[2]!.reason).toContain("[action:action_ghost] is not in the journal");
    const ended = child.at(-1)!;
    expect(ended.type === "run.completed" && ended.data.outcome.status).toBe("verification_failed");
  });

  it("a child told its evidence does not check out can cite what it did, and the spawn commits", async () => {
    const journal = createMemoryJournal();
    const { provider } = routed(
      [spawn("check that echo works"), say("echo works")],
      [callTools([{ name: "echo", args: { text: "ping" }, id: "call_echo" }]), say(claimsCiting("call:call_other")), say(CLAIMS)],
    );
    await harnessOf(provider, journal).start("find out whether echo works", { runId: "run_parent" });
    const committed = (await eventsOf(journal, "run_parent")).find((event) => event.type === "action.committed");
    expect(committed?.type === "action.committed" && (committed.data.result.output as { result: unknown }).result).toEqual(JSON.parse(CLAIMS));
  });

  it("a child that ends without a result its schema accepts fails the spawn with SUBAGENT_FAILED; the parent goes on", async () => {
    const journal = createMemoryJournal();
    const { provider } = routed([spawn("do it"), say("it failed")], [say("not json"), say("still not"), say("never")]);
    const result = await harnessOf(provider, journal).start("delegate", { runId: "run_parent" });
    expect(result.outcome?.status).toBe("completed");
    const failed = (await eventsOf(journal, "run_parent")).find((event) => event.type === "action.failed");
    expect(failed?.type === "action.failed" && failed.data.result.error?.code).toBe("SUBAGENT_FAILED");
  });

  it("a model that fans out 1,000 subagents ends budget_exhausted on fan_out; no child starts", async () => {
    const journal = createMemoryJournal();
    const thousand = callTools(Array.from({ length: 1_000 }, (_, index) => ({ name: "spawn_subagent", args: { task: `task ${index}` } })));
    const { provider, childModel } = routed([thousand], []);
    const result = await harnessOf(provider, journal, { maxToolCallsPerTurn: 1_000, subagents: { tools: ["echo"], budget: { tokens: 500 } } }).start(
      "spawn them all",
      { runId: "run_parent" },
    );
    expect(result.outcome).toMatchObject({ status: "budget_exhausted", budget: "fan_out", limit: 10 });
    expect(childModel.calls).toHaveLength(0);
    const parent = await eventsOf(journal, "run_parent");
    expect(parent.filter((event) => event.type === "budget.reserved" && event.data.attribution.kind === "subagent")).toHaveLength(0);
    expect(parent.filter((event) => event.type === "tool.rejected")).toHaveLength(1_000);
  });

  it("children that never stop each end within their own reservation; concurrent children never spend past the parent", async () => {
    const journal = createMemoryJournal();
    const forever = Array.from({ length: 400 }, (_, index) => ({
      ...callTools([{ name: "echo", args: { text: `more ${index}` } }]),
      usage: { inputTokens: 40, outputTokens: 10 },
    }));
    const parentSteps = [callTools(Array.from({ length: 3 }, (_, index) => ({ name: "spawn_subagent", args: { task: `loop ${index}` } }))), say("done")];
    const { provider } = routed(parentSteps, forever);
    const harness = harnessOf(provider, journal, {
      budget: { limits: { tokens: 3_000_000, fan_out: 3 } },
      subagents: { tools: ["echo"], budget: { tokens: 1_000_000, turns: 4 }, maxTurns: 100 },
    });
    const result = await harness.start("three loops at once", { runId: "run_parent" });
    expect(result.outcome?.status).toBe("completed");
    const parent = await eventsOf(journal, "run_parent");
    const children = parent.flatMap((event) =>
      event.type === "budget.reserved" && event.data.attribution.kind === "subagent" ? [event.data.attribution.childRunId!] : [],
    );
    expect(children).toHaveLength(3);
    let total = 0;
    for (const childRunId of children) {
      const child = await eventsOf(journal, childRunId);
      const last = child.at(-1);
      expect(last?.type === "run.completed" && last.data.outcome, JSON.stringify(last)).toMatchObject({
        status: "budget_exhausted",
        budget: "turns",
        limit: 4,
      });
      const turns = child.flatMap((event) => (event.type === "budget.settled" ? [event.data.charged.turns ?? 0] : [])).reduce((a, b) => a + b, 0);
      expect(turns).toBeLessThanOrEqual(4);
      total += child.flatMap((event) => (event.type === "budget.settled" ? [event.data.charged.tokens ?? 0] : [])).reduce((a, b) => a + b, 0);
    }
    expect(total).toBeLessThanOrEqual(3_000_000);
    const failed = parent.filter((event) => event.type === "action.failed");
    expect(failed.map((event) => event.type === "action.failed" && event.data.result.error?.code)).toEqual([
      "SUBAGENT_FAILED",
      "SUBAGENT_FAILED",
      "SUBAGENT_FAILED",
    ]);
  });

  it("a crash while the child runs: a fresh process resumes the parent, whose spawn finds and resumes the same child", async () => {
    const store = createMemoryJournal();
    const parentSteps = [spawn("two echoes"), say("done")];
    const childSteps = [
      callTools([{ name: "echo", args: { text: "one" }, id: "call_echo" }]),
      callTools([{ name: "echo", args: { text: "two" } }]),
      say(CLAIMS),
    ];
    // Appends: parent start (0), parent response (1), child start (2), child response (3); the 5th dies.
    const first = routed(parentSteps, childSteps);
    await expect(harnessOf(first.provider, crashingJournal(store, 4, "written")).start("delegate", { runId: "run_parent" })).rejects.toThrow(/simulated crash/);
    const answeredChild = first.childModel.calls.length;
    const second = routed(parentSteps.slice(1), childSteps.slice(answeredChild));
    // A fresh process: its ids do not repeat the first one's (as a ULID source's never do).
    const result = await harnessOf(second.provider, store, { ids: sequentialIdSource(10_000) }).resume("run_parent");
    expect(result.outcome?.status).toBe("completed");
    const parent = await eventsOf(store, "run_parent");
    const childRunIds = new Set(
      parent.flatMap((event) => (event.type === "budget.reserved" && event.data.attribution.kind === "subagent" ? [event.data.attribution.childRunId!] : [])),
    );
    expect(childRunIds.size).toBe(1);
    const [childRunId] = childRunIds;
    const child = await eventsOf(store, childRunId!);
    expect(child.filter((event) => event.type === "run.started")).toHaveLength(1);
    expect(child.at(-1)?.type).toBe("run.completed");
    const committed = parent.find((event) => event.type === "action.committed");
    expect(committed?.type === "action.committed" && committed.data.result.output).toEqual({ childRunId, result: JSON.parse(CLAIMS) });
    // The spawn attempt the crash cut is settled on resume (charged all it held: its child may have spent it), and so is its retry.
    const open = new Set<string>();
    for (const event of [...parent, ...child]) {
      if (event.type === "budget.reserved") open.add(event.data.reservationId);
      if (event.type === "budget.settled") open.delete(event.data.reservationId);
    }
    expect([...open]).toEqual([]);
  });

  it("refuses a child tool the harness does not have, or spawn_subagent itself (CONFIG_INVALID)", () => {
    const { provider } = routed([], []);
    expect(() => harnessOf(provider, createMemoryJournal(), { subagents: { tools: ["nope"], budget: {} } })).toThrow(
      expect.objectContaining({ code: "CONFIG_INVALID" }),
    );
    expect(() => harnessOf(provider, createMemoryJournal(), { subagents: { tools: ["spawn_subagent"], budget: {} } })).toThrow(
      expect.objectContaining({ code: "CONFIG_INVALID" }),
    );
  });
});
