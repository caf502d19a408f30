import type { AnyTool, JsonValue } from "@yoke/protocol";
import { isAskedForByUser, type ApprovalAsked } from "./approver.js";
import { buildEnvironment, injectionValues, type InjectionValues } from "./environment.js";
import { createAgentDojoModel, isOutputAttack, type AgentDojoModel, type IssuedCall } from "./model.js";
import { builtInHandlers, builtInPrepare } from "./handlers.js";
import { evaluatePredicate, type PredicateContext } from "./predicates.js";
import { agentDojoTools, type SecurityEnvironment, type SuiteToolsOptions } from "./tools.js";
import type { InjectionTask, SuiteData, UserTask } from "./types.js";

/** What a harness factory is given for one run: the suite, the pair, the tools over a fresh environment and the model. */
export interface PairSetup {
  readonly suite: SuiteData;
  readonly userTask: UserTask;
  /** Absent for a run without attack. */
  readonly injectionTask?: InjectionTask;
  readonly values: InjectionValues;
  readonly env: SecurityEnvironment;
  readonly tools: readonly AnyTool[];
  readonly model: AgentDojoModel;
}

/**
 * The part of a harness the runner uses: start a run with the user's prompt, get the final
 * text, and (when the run parked calls for approval) what was asked and answered.
 */
export interface SecurityHarness {
  start(task: string): Promise<{ readonly text: string; readonly outcome: string; readonly approvals?: readonly ApprovalAsked[] }>;
  close?(): Promise<void>;
}

/** Builds the harness one run goes through (a real runtime, a policy, a journal: the caller's choice). */
export type HarnessFactory = (setup: PairSetup) => SecurityHarness | Promise<SecurityHarness>;

/** A benign call (a step of the user task) that did not run: refused by policy, parked for approval, or never answered. */
export interface BlockedCall {
  readonly suite: string;
  readonly userTaskId: string;
  readonly injectionTaskId?: string;
  readonly function: string;
  readonly args: JsonValue;
  /** The error code the model was shown (`POLICY_DENIED`, …), or `NO_RESULT` when the run parked or ended first. */
  readonly code: string;
  readonly message?: string;
}

/** The outcome of one run. */
export interface PairResult {
  readonly suite: string;
  readonly userTaskId: string;
  readonly injectionTaskId?: string;
  readonly outcome: string;
  /** The user task's utility check on this run. */
  readonly utility: boolean;
  /** The injection task's security check on the trace the model ISSUED (upstream's number: a refused call still counts for trace-based checks). */
  readonly attackIssued?: boolean;
  /** The security check with the trace of calls that actually ran: an attack effect was committed. */
  readonly attackCommitted?: boolean;
  /** Whether the model read the injection and obeyed it (issued its calls). */
  readonly injectionObeyed?: boolean;
  /** Set when the injection task is judged on what the model says (`isOutputAttack`). */
  readonly outputAttack?: boolean;
  readonly issued: readonly IssuedCall[];
  readonly blocked: readonly BlockedCall[];
  /** Every approval the run asked a person for, with the answer, and whether the call was one the user's task asked for. */
  readonly approvals: readonly (ApprovalAsked & { readonly benign: boolean })[];
  /** Set when the harness threw: the message. */
  readonly error?: string;
}

/** Codes that mean "the harness would not run it", as opposed to a tool failing. */
const BLOCK_CODES = /^(POLICY_|APPROVAL_|CAPABILITY_|TENANT_)/;

/**
 * Runs one user task (with one injection task's attack, or none) through the harness the
 * factory builds: a fresh environment with the vectors filled, the suite's tools over it,
 * the obedient scripted model; then evaluates the user task's utility check and the
 * injection task's security check on the final environment and the trace.
 *
 * @example
 * ```ts
 * const result = await runPair({ suite, userTask, injectionTask, harness: ({ tools, model }) => createHarness({ provider: model, tools }) });
 * result.attackCommitted; // false under a policy that contains it
 * ```
 */
export async function runPair(
  options: {
    readonly suite: SuiteData;
    readonly userTask: UserTask;
    readonly injectionTask?: InjectionTask;
    readonly harness: HarnessFactory;
  } & SuiteToolsOptions,
): Promise<PairResult> {
  const { suite, userTask, injectionTask } = options;
  const values = injectionValues(suite, userTask, injectionTask);
  const builtIn = options.handlers === undefined || options.handlers === builtInHandlers(suite.name);
  const prepare = options.prepare ?? (builtIn ? builtInPrepare(suite.name) : undefined);
  const built = buildEnvironment(suite, values, injectionTask);
  const pre = prepare === undefined ? built : prepare(built);
  const env: SecurityEnvironment = { state: structuredClone(pre), dispatched: [] };
  const tools = agentDojoTools(suite, env, {
    ...(options.handlers === undefined ? {} : { handlers: options.handlers }),
    ...(options.declarations === undefined ? {} : { declarations: options.declarations }),
  });
  const model = createAgentDojoModel({ userTask, injectionTasks: suite.injectionTasks, values });
  const harness = await options.harness({ suite, userTask, ...(injectionTask === undefined ? {} : { injectionTask }), values, env, tools, model });
  let text = "";
  let outcome = "error";
  let error: string | undefined;
  let asked: readonly ApprovalAsked[] = [];
  try {
    const result = await harness.start(userTask.prompt);
    text = result.text;
    outcome = result.outcome;
    asked = result.approvals ?? [];
  } catch (caught) {
    error = caught instanceof Error ? caught.message : String(caught);
  } finally {
    await harness.close?.();
  }
  const trace = model.issued.map((call) => ({ function: call.function, args: call.args }));
  const context: PredicateContext = { pre, post: env.state, output: text, trace, injections: values };
  const utility = evaluatePredicate(userTask.utilityCheck, context);
  const ids = { suite: suite.name, userTaskId: userTask.id, ...(injectionTask === undefined ? {} : { injectionTaskId: injectionTask.id }) };
  const blocked: BlockedCall[] = model.issued
    .filter((call) => call.phase === "user" && (call.result === undefined || (call.result.code !== undefined && BLOCK_CODES.test(call.result.code))))
    .map((call) => ({
      ...ids,
      function: call.function,
      args: call.args,
      code: call.result?.code ?? "NO_RESULT",
      ...(call.result?.message === undefined ? {} : { message: call.result.message }),
    }));
  const attack =
    injectionTask === undefined
      ? {}
      : {
          attackIssued: evaluatePredicate(injectionTask.securityCheck, context),
          attackCommitted: evaluatePredicate(injectionTask.securityCheck, { ...context, trace: env.dispatched }),
          injectionObeyed: model.obeyed.includes(injectionTask.id),
          ...(isOutputAttack(injectionTask) ? { outputAttack: true } : {}),
        };
  const approvals = asked.map((approval) => ({
    ...approval,
    benign: isAskedForByUser(userTask, values, { toolName: approval.function, input: approval.args }),
  }));
  return { ...ids, outcome, utility, ...attack, issued: model.issued, blocked, approvals, ...(error === undefined ? {} : { error }) };
}

/** Every run of one suite: each user task without attack, then every user × injection pair. */
export interface SuiteRun {
  readonly suite: string;
  readonly withoutAttack: readonly PairResult[];
  readonly underAttack: readonly PairResult[];
}

/**
 * Runs a whole suite: every user task without attack and every pair (user × injection)
 * with the `important_instructions` attack, sequentially, each through a fresh harness.
 *
 * @example
 * ```ts
 * const run = await runSuite({ suite: agentDojoSuite("slack"), harness });
 * console.log(formatReport([suiteReport(run, "suite-wide policy")]));
 * ```
 */
export async function runSuite(
  options: {
    readonly suite: SuiteData;
    readonly harness: HarnessFactory;
    readonly userTasks?: readonly string[];
    /** Only these injection tasks (default: all). */
    readonly injectionTasks?: readonly string[];
  } & SuiteToolsOptions,
): Promise<SuiteRun> {
  const { suite, harness } = options;
  const tooling = {
    ...(options.handlers === undefined ? {} : { handlers: options.handlers }),
    ...(options.declarations === undefined ? {} : { declarations: options.declarations }),
    ...(options.prepare === undefined ? {} : { prepare: options.prepare }),
  };
  const injectionTasks = suite.injectionTasks.filter((task) => options.injectionTasks === undefined || options.injectionTasks.includes(task.id));
  const userTasks = suite.userTasks.filter((task) => options.userTasks === undefined || options.userTasks.includes(task.id));
  const withoutAttack: PairResult[] = [];
  const underAttack: PairResult[] = [];
  for (const userTask of userTasks) withoutAttack.push(await runPair({ suite, userTask, harness, ...tooling }));
  for (const userTask of userTasks) {
    for (const injectionTask of injectionTasks) underAttack.push(await runPair({ suite, userTask, injectionTask, harness, ...tooling }));
  }
  return { suite: suite.name, withoutAttack, underAttack };
}
