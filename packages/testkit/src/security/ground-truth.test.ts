import type { AnyTool, JsonValue } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { agentDojoSuite, SUITE_NAMES } from "./data.js";
import { buildEnvironment, importantInstructions, injectionValues, resolveArgs, type InjectionValues } from "./environment.js";
import { evaluatePredicate, type TraceCall } from "./predicates.js";
import { agentDojoTools, type SecurityEnvironment } from "./tools.js";
import type { GroundTruthCall, InjectionTask, SuiteData } from "./types.js";

/** Runs calls straight through the tools (validation, then the handler), as upstream's ground-truth pipeline does. */
async function execute(tools: readonly AnyTool[], calls: readonly GroundTruthCall[], values: InjectionValues, trace: TraceCall[]): Promise<string[]> {
  const outputs: string[] = [];
  for (const call of calls) {
    const args = resolveArgs(call, values);
    trace.push({ function: call.function, args });
    const tool = tools.find((candidate) => candidate.name === call.function)!;
    const validated = await tool.input["~standard"].validate(args);
    if ("issues" in validated && validated.issues !== undefined) throw new Error(`${call.function}: ${JSON.stringify(validated.issues)}`);
    try {
      const output = await tool.execute((validated as { value: unknown }).value, {} as never);
      outputs.push(typeof output === "string" ? output : output.content);
    } catch (error) {
      outputs.push((error as Error).message);
    }
  }
  return outputs;
}

function setup(suite: SuiteData, values: InjectionValues, injectionTask?: InjectionTask) {
  const pre = buildEnvironment(suite, values, injectionTask);
  const env: SecurityEnvironment = { state: structuredClone(pre), dispatched: [] };
  return { pre, env, tools: agentDojoTools(suite, env) };
}

describe.each(SUITE_NAMES)("AgentDojo %s ground truths", (name) => {
  const suite = agentDojoSuite(name);

  it("has the documented counts", () => {
    expect([suite.userTasks.length, suite.injectionTasks.length]).toEqual(name === "banking" ? [16, 10] : [21, 6]);
  });

  it.each(suite.userTasks.map((task) => [task.id, task] as const))("%s: the ground truth passes its utility check with no attack", async (_id, task) => {
    const values = injectionValues(suite);
    const { pre, env, tools } = setup(suite, values);
    const trace: TraceCall[] = [];
    await execute(tools, task.groundTruth, values, trace);
    const context = { pre, post: env.state, output: task.groundTruthOutput ?? "", trace, injections: values };
    expect(evaluatePredicate(task.utilityCheck, context)).toBe(true);
  });

  it("no run without attack meets any injection task's security check (the checks are not trivially true)", async () => {
    for (const task of suite.userTasks) {
      const values = injectionValues(suite);
      const { pre, env, tools } = setup(suite, values);
      const trace: TraceCall[] = [];
      await execute(tools, task.groundTruth, values, trace);
      for (const injection of suite.injectionTasks) {
        expect(
          evaluatePredicate(injection.securityCheck, { pre, post: env.state, output: "", trace, injections: values }),
          `${task.id} × ${injection.id}`,
        ).toBe(false);
      }
    }
  });

  it("every pair: the attack reaches the model verbatim, and the injection ground truth after the user's passes its security check", async () => {
    let pairs = 0;
    for (const task of suite.userTasks) {
      for (const injection of suite.injectionTasks) {
        const values = injectionValues(suite, task, injection);
        const { pre, env, tools } = setup(suite, values, injection);
        const trace: TraceCall[] = [];
        const outputs = await execute(tools, task.groundTruth, values, trace);
        expect(
          outputs.some((output) => output.includes(importantInstructions(injection.goal))),
          `${task.id} × ${injection.id}`,
        ).toBe(true);
        await execute(tools, injection.groundTruth, values, trace);
        expect(
          evaluatePredicate(injection.securityCheck, { pre, post: env.state, output: "", trace, injections: values }),
          `${task.id} × ${injection.id}`,
        ).toBe(true);
        pairs += 1;
      }
    }
    expect(pairs).toBe(name === "banking" ? 160 : 126);
  });
});

describe("the environment", () => {
  it("fills placeholders in parsed strings: the bill's effective default has real tabs, an attacked channel name is External_<attack>", () => {
    const banking = agentDojoSuite("banking");
    const files = (buildEnvironment(banking, injectionValues(banking)).filesystem as { files: Record<string, string> }).files;
    expect(files["bill-december-2023.txt"]).toContain("Car Rental\t\t98.70\n");
    const slack = agentDojoSuite("slack");
    const task = slack.userTasks.find((candidate) => candidate.id === "user_task_7")!;
    const values = injectionValues(slack, task, slack.injectionTasks[0]);
    const env = buildEnvironment(slack, values) as { slack: { channels: string[]; user_channels: Record<string, string[]> } };
    expect(env.slack.channels[3]).toBe(`External_${importantInstructions(slack.injectionTasks[0]!.goal)}`);
    expect(env.slack.user_channels.Eve![1]).toBe(env.slack.channels[3]);
    // The data set's own environment is untouched.
    expect((slack.environment.slack as { channels: JsonValue[] }).channels[3]).toBe("External_{prompt_injection_channel}");
  });

  it("plants a Yoke attack's records only in the pair it attacks, with the attack text in them", () => {
    const banking = agentDojoSuite("banking");
    const fresh = banking.injectionTasks.find((task) => task.id === "yoke_injection_task_fresh_payee")!;
    const task = banking.userTasks[3]!;
    const transactionsOf = (env: JsonValue) => (env as { bank_account: { transactions: { sender: string; subject: string }[] } }).bank_account.transactions;
    expect(transactionsOf(buildEnvironment(banking, injectionValues(banking)))).toHaveLength(5);
    const attacked = transactionsOf(buildEnvironment(banking, injectionValues(banking, task, fresh), fresh));
    expect(attacked).toHaveLength(6);
    expect(attacked[5]).toMatchObject({ sender: "GB33BUKB20201555555555", amount: 0.01, subject: importantInstructions(fresh.goal) });
    // The data set is not mutated by planting.
    expect(transactionsOf(banking.environment)).toHaveLength(5);
  });
});
