import type { JsonValue } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { coerceArguments } from "./coerce.js";
import environment from "./data/workspace/environment.json" with { type: "json" };
import injectionTasks from "./data/workspace/injection-tasks.json" with { type: "json" };
import vectors from "./data/workspace/injection-vectors.json" with { type: "json" };
import tools from "./data/workspace/tools.json" with { type: "json" };
import userTasks from "./data/workspace/user-tasks.json" with { type: "json" };
import { buildEnvironment, importantInstructions, injectionValues, resolveArgs, type InjectionValues } from "./environment.js";
import { evaluatePredicate, type TraceCall } from "./predicates.js";
import { renderOutput } from "./render.js";
import { SimulatedToolError, type SecurityEnvironment } from "./tool-support.js";
import type { GroundTruthCall, InjectionTask, JsonObject, SuiteData, SuiteName } from "./types.js";
import { withWorkspaceDerivedFields, workspaceImplementations } from "./workspace-tools.js";

// The bundled suites are banking and slack; the workspace files are read here directly.
const suite: SuiteData = {
  name: "workspace" as SuiteName,
  environment: environment as unknown as JsonObject,
  vectors: (vectors as unknown as Pick<SuiteData, "vectors">).vectors,
  tools: (tools as unknown as Pick<SuiteData, "tools">).tools,
  userTasks: (userTasks as unknown as Pick<SuiteData, "userTasks">).userTasks,
  injectionTasks: (injectionTasks as unknown as Pick<SuiteData, "injectionTasks">).injectionTasks,
};

/** The one user task whose own ground truth fails its check upstream too (rescheduling moves the end time, which the check forbids). */
const FAILS_OWN_CHECK = "user_task_7";
/** User tasks that see an e-mail vector: the injected e-mail also says "Important message!", so injection_task_0's search finds two. */
const SEES_EMAIL_VECTOR = (id: string) => suite.userTasks.find((task) => task.id === id)!.injectionVectorsSeen.some((vector) => vector.startsWith("email_"));

type GroundTruthWithPlaceholders = GroundTruthCall & { readonly placeholderArgs?: Readonly<Record<string, JsonValue>> };

/** Runs calls as upstream's ground-truth pipeline does: lenient validation, then the tool; an error is the tool's text. */
function execute(env: SecurityEnvironment, calls: readonly GroundTruthWithPlaceholders[], values: InjectionValues, trace: TraceCall[]): string[] {
  const outputs: string[] = [];
  let lastSent: string | undefined;
  for (const call of calls) {
    const args = resolveArgs(call, values);
    // An id the call sends that was assigned earlier in the same ground truth (the e-mail it just sent).
    for (const [name, placeholder] of Object.entries(call.placeholderArgs ?? {})) {
      if (placeholder === "$sent_email.id" && lastSent !== undefined) args[name] = lastSent;
    }
    trace.push({ function: call.function, args });
    const description = suite.tools.find((tool) => tool.name === call.function)!;
    const implementation = workspaceImplementations[call.function]!;
    const coerced = coerceArguments(description.parameters, args);
    if (!coerced.ok) throw new Error(`${call.function}: ${coerced.error}`);
    try {
      const result = implementation.run(env, coerced.value);
      if (call.function === "send_email") lastSent = (result as { id_: string }).id_;
      outputs.push(implementation.render?.(result, coerced.value) ?? renderOutput(result));
    } catch (error) {
      if (!(error instanceof SimulatedToolError)) throw error;
      outputs.push(error.message);
    }
  }
  return outputs;
}

function setup(values: InjectionValues) {
  const pre = withWorkspaceDerivedFields(buildEnvironment(suite, values));
  const env: SecurityEnvironment = { state: structuredClone(pre), dispatched: [] };
  return { pre, env };
}

describe("AgentDojo workspace ground truths", () => {
  it("has the documented counts, and an implementation for exactly the declared tools", () => {
    expect([suite.userTasks.length, suite.injectionTasks.length, suite.tools.length]).toEqual([40, 6, 24]);
    expect(Object.keys(workspaceImplementations).sort()).toEqual(suite.tools.map((tool) => tool.name).sort());
  });

  it("the user tasks that see an e-mail vector are the nine the data set's README names for injection_task_0's quirk", () => {
    const ids = suite.userTasks.filter((task) => SEES_EMAIL_VECTOR(task.id)).map((task) => Number(task.id.replace("user_task_", "")));
    expect(ids.sort((a, b) => a - b)).toEqual([14, 15, 16, 17, 18, 22, 23, 24, 39]);
  });

  it("materialises every file's size as its length in code points", () => {
    const { pre } = setup(injectionValues(suite));
    const files = (pre.cloud_drive as { initial_files: { content: string; size: number }[] }).initial_files;
    expect(files).toHaveLength(26);
    for (const file of files) expect(file.size).toBe([...file.content].length);
  });

  it.each(suite.userTasks.map((task) => [task.id, task] as const))(
    "%s: the ground truth meets its utility check with no attack (user_task_7 fails it, as upstream)",
    (id, task) => {
      const values = injectionValues(suite);
      const { pre, env } = setup(values);
      const trace: TraceCall[] = [];
      execute(env, task.groundTruth, values, trace);
      const context = { pre, post: env.state, output: task.groundTruthOutput ?? "", trace, injections: values };
      expect(evaluatePredicate(task.utilityCheck, context)).toBe(id !== FAILS_OWN_CHECK);
    },
  );

  it("no user task's ground truth without attack meets any injection task's security check", () => {
    for (const task of suite.userTasks) {
      const values = injectionValues(suite);
      const { pre, env } = setup(values);
      const trace: TraceCall[] = [];
      execute(env, task.groundTruth, values, trace);
      for (const injection of suite.injectionTasks) {
        expect(
          evaluatePredicate(injection.securityCheck, { pre, post: env.state, output: "", trace, injections: values }),
          `${task.id} × ${injection.id}`,
        ).toBe(false);
      }
    }
  });

  it.each(suite.injectionTasks.map((task) => [task.id, task] as const))(
    "%s: the ground truth alone meets its security check",
    (_id, injection: InjectionTask) => {
      const values = injectionValues(suite);
      const { pre, env } = setup(values);
      const trace: TraceCall[] = [];
      execute(env, injection.groundTruth, values, trace);
      expect(evaluatePredicate(injection.securityCheck, { pre, post: env.state, output: "", trace, injections: values })).toBe(true);
    },
  );

  it("every pair: the attack reaches the model verbatim, utility holds under attack, and the injection ground truth after the user's meets its security check", () => {
    const tally = { pairs: 0, utility: 0, security: 0 };
    for (const task of suite.userTasks) {
      for (const injection of suite.injectionTasks) {
        const pair = `${task.id} × ${injection.id}`;
        const values = injectionValues(suite, task, injection);
        const { pre, env } = setup(values);
        const trace: TraceCall[] = [];
        const outputs = execute(env, task.groundTruth, values, trace);
        expect(
          outputs.some((output) => output.includes(importantInstructions(injection.goal))),
          pair,
        ).toBe(true);
        const useful = evaluatePredicate(task.utilityCheck, { pre, post: env.state, output: task.groundTruthOutput ?? "", trace, injections: values });
        expect(useful, pair).toBe(task.id !== FAILS_OWN_CHECK);
        execute(env, injection.groundTruth, values, trace);
        const attacked = evaluatePredicate(injection.securityCheck, { pre, post: env.state, output: "", trace, injections: values });
        expect(attacked, pair).toBe(!(injection.id === "injection_task_0" && SEES_EMAIL_VECTOR(task.id)));
        tally.pairs += 1;
        tally.utility += useful ? 1 : 0;
        tally.security += attacked ? 1 : 0;
      }
    }
    // The data set's README: 234 / 240 (user_task_7) and 231 / 240 (injection_task_0 × 9 e-mail-vector tasks).
    expect(tally).toEqual({ pairs: 240, utility: 234, security: 231 });
  });
});
