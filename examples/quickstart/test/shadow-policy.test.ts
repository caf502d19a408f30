// Shadow mode on the quick-start scenario: the demo's tools and scripted model, the primary
// under one policy and a candidate under a changed one. The report names the decisions that
// differ, and the candidate changes nothing in the workspace.
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMemoryJournal } from "@yoke/journal";
import { allowRule, approvalRule, createPolicyEngine, definePolicy, matching } from "@yoke/policy";
import { sequentialIdSource, steppingClock } from "@yoke/protocol";
import { createHarness, formatRolloutReport, shadow, type AnyTool, type HarnessOptions } from "@yoke/runtime";
import { createScriptedModel } from "@yoke/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { agentScript } from "../src/agent-script.ts";
import { EXPECTED_SUMMARY, checkSummary, seedWorkspace, workspaceTools } from "../src/workspace-tools.ts";

const TASK = "Read notes/todo.txt, write summary.md listing every item, then run run_check.";
const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** The demo's tools over `root`, each call recorded in `ledger` (tool name and arguments) before it runs. */
function ledgered(root: string, ledger: { tool: string; args: unknown }[]): AnyTool[] {
  return workspaceTools(root).map((tool) => ({
    ...tool,
    execute: async (input: unknown, context: Parameters<typeof tool.execute>[1]) => {
      ledger.push({ tool: tool.name, args: input });
      return tool.execute(input as never, context);
    },
  }));
}

// The write follows the file the agent read (untrusted content): the rule says that is fine here.
const workspaceWrites = allowRule(
  "workspace-writes",
  matching({ tool: { names: ["write_file"] }, influence: ["trusted", "untrusted"] }),
  "the demo's agent writes in its own workspace",
);

function release(root: string, ledger: { tool: string; args: unknown }[], policy: ReturnType<typeof definePolicy>): HarnessOptions {
  return {
    journal: createMemoryJournal(),
    provider: createScriptedModel(agentScript()),
    tools: ledgered(root, ledger),
    tenantId: "tenant_demo",
    systemPrompt: "You are a careful assistant. Use the tools to read and change files.",
    maxTurns: 10,
    policy: createPolicyEngine(policy),
    checkCompletion: async () => checkSummary(root),
    clock: steppingClock(1_000, 7),
    ids: sequentialIdSource(),
    sleep: async () => undefined,
  };
}

function workspace(): string {
  const root = mkdtempSync(join(tmpdir(), "yoke-shadow-quickstart-"));
  roots.push(root);
  seedWorkspace(root);
  return root;
}

describe("shadow mode on the quick-start scenario", () => {
  it("a changed policy (workspace writes need a person): the report names the write that differs; the candidate wrote nothing", async () => {
    const root = workspace();
    const primaryCalls: { tool: string; args: unknown }[] = [];
    const candidateCalls: { tool: string; args: unknown }[] = [];
    const current = definePolicy({ version: 1, id: "quickstart", rules: [workspaceWrites] });
    const changed = definePolicy({
      version: 1,
      id: "quickstart-writes-reviewed",
      rules: [approvalRule("writes-need-a-person", matching({ tool: { names: ["write_file"] } }), "a person reviews every write")],
    });
    const shadowed = shadow(release(root, primaryCalls, current), release(root, candidateCalls, changed));
    const result = await shadowed.start(TASK);
    expect(result.outcome?.status).toBe("verified_success");
    const written = statSync(join(root, "summary.md")).mtimeMs;

    const report = await shadowed.report(result.runId);
    expect(report.primary.outcome).toBe("verified_success");
    expect(report.candidate?.outcome).toBe("waiting_approval");
    // read_file and the malformed write_file (refused by its schema) are decided alike.
    expect(report.sameDecisions).toBe(2);
    expect(report.differences.map((difference) => [difference.toolName, difference.primary?.decision, difference.candidate?.decision])).toEqual([
      ["write_file", "admitted", "parked"],
      ["run_check", "admitted", undefined],
    ]);
    expect(report.differences[0]?.primary?.policy).toEqual({ effect: "allow", ruleId: "workspace-writes" });
    expect(report.differences[0]?.candidate?.policy).toEqual({ effect: "require_approval", ruleId: "writes-need-a-person" });
    const text = formatRolloutReport(report);
    expect(text).toContain("write_file");
    expect(text).toContain("policy allow (workspace-writes)");
    expect(text).toContain("policy require_approval (writes-need-a-person)");

    // No side effect of the candidate: it read, and wrote nothing.
    expect(candidateCalls.map((call) => call.tool)).toEqual(["read_file"]);
    expect(primaryCalls.map((call) => call.tool)).toEqual(["read_file", "write_file", "run_check"]);
    expect(readFileSync(join(root, "summary.md"), "utf8")).toBe(EXPECTED_SUMMARY);
    expect(statSync(join(root, "summary.md")).mtimeMs).toBe(written);
  });

  it("a candidate whose policy admits the write: the write is answered with the primary's result, never run again", async () => {
    const root = workspace();
    const primaryCalls: { tool: string; args: unknown }[] = [];
    const candidateCalls: { tool: string; args: unknown }[] = [];
    const current = definePolicy({ version: 1, id: "quickstart", rules: [workspaceWrites] });
    const renamed = definePolicy({ version: 1, id: "quickstart-v2", rules: [{ ...workspaceWrites, id: "workspace-writes-v2" }] });
    const shadowed = shadow(release(root, primaryCalls, current), release(root, candidateCalls, renamed));
    const result = await shadowed.start(TASK);
    const report = await shadowed.report(result.runId);

    expect(report.candidate?.outcome).toBe("verified_success");
    expect(report.differences.map((difference) => [difference.toolName, difference.fields])).toEqual([["write_file", ["rule", "policy"]]]);
    expect(report.suppressed).toEqual([expect.objectContaining({ toolName: "write_file", sideEffect: "idempotent", served: "primary_outcome" })]);
    expect(candidateCalls.map((call) => call.tool)).toEqual(["read_file", "run_check"]);
    expect(primaryCalls.filter((call) => call.tool === "write_file")).toHaveLength(1);
  });

  it("the primary's result is the one the primary alone gives, with a candidate on another policy beside it", async () => {
    const root = workspace();
    const alone = createHarness(release(root, [], definePolicy({ version: 1, id: "quickstart", rules: [workspaceWrites] })));
    const expected = await alone.start(TASK);
    const second = workspace();
    const shadowed = shadow(
      release(second, [], definePolicy({ version: 1, id: "quickstart", rules: [workspaceWrites] })),
      release(second, [], definePolicy({ version: 1, id: "changed", rules: [] })),
    );
    const result = await shadowed.start(TASK);
    expect(result.state.length).toBe(expected.state.length);
    expect(result.outcome).toEqual(expected.outcome);
  });
});
