import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createPolicyEngine, loadPolicy } from "@yoke/policy";
import { YokeError, type PolicyEngineV1 } from "@yoke/protocol";
import {
  SECURITY_MODES,
  SUITE_NAMES,
  type EnvironmentPreparer,
  type PairSetup,
  type SecurityMode,
  type SuiteData,
  type SuiteReport,
  type SuiteResults,
  type ToolDeclarations,
  type ToolHandlers,
  agentDojoSuite,
  builtInHandlers,
  builtInPrepare,
  checkDeclarations,
  checkHandlers,
  defaultDeclarationsFor,
  defaultPolicyFor,
  denyAllApprover,
  groundTruthPlanner,
  honestApprover,
  loadSuite,
  loadToolDeclarations,
  rubberStampApprover,
  runSuite,
  suiteReport,
} from "@yoke/testkit/security";
import type { SecurityArgs } from "./cli-args.ts";
import { runtimeHarness } from "./harnesses.ts";

const here = dirname(fileURLToPath(import.meta.url));
/** The shipped suite-wide policies and declarations of the dev suites. */
export const POLICIES_DIR = resolve(here, "../policies");
/**
 * The data set folder where the dev suites not bundled with the testkit live:
 * `YOKE_AGENTDOJO_DIR`, else `../shared/security/agentdojo` beside the repository.
 */
export const SHARED_SUITES_DIR = resolve(process.env.YOKE_AGENTDOJO_DIR ?? resolve(here, "../../../../shared/security/agentdojo"));

/** The dev suites, in the order `pnpm security` runs them. */
export const DEV_SUITES = ["banking", "slack", "workspace"] as const;

/** One suite ready to run: its data, handlers, declarations and policy (with where each came from). */
export interface SuiteTarget {
  readonly suite: SuiteData;
  readonly handlers: ToolHandlers;
  /** What the simulation derives from each fresh environment (the handlers module's `prepare`, or the built-in suite's). */
  readonly prepare?: EnvironmentPreparer;
  readonly declarations: ToolDeclarations;
  readonly declarationsSource: string;
  readonly policy: PolicyEngineV1;
  readonly policySource: string;
}

/**
 * The handlers exported by a module (`default`, `handlers`, or its only export): a record of
 * tool implementations, each with a `run` function. CONFIG_INVALID naming the file otherwise.
 */
export async function loadHandlersModule(file: string): Promise<ToolHandlers> {
  const path = resolve(file);
  if (!existsSync(path)) throw new YokeError("CONFIG_INVALID", `no handlers module at ${path}`, { details: { file: path, field: null } });
  const module = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  const exported = Object.keys(module);
  const others = exported.filter((name) => name !== "prepare");
  const candidate = module.default ?? module.handlers ?? (others.length === 1 ? module[others[0]!] : undefined);
  if (candidate === null || typeof candidate !== "object") {
    throw new YokeError("CONFIG_INVALID", `${path} exports no Record<string, ToolImplementation> (as default, as handlers, or as its only export)`, {
      details: { file: path, field: null, exported },
    });
  }
  for (const [name, implementation] of Object.entries(candidate)) {
    if (implementation === null || typeof implementation !== "object" || typeof (implementation as { run?: unknown }).run !== "function") {
      throw new YokeError("CONFIG_INVALID", `${path}: the handler of ${name} has no run function`, { details: { file: path, field: name } });
    }
  }
  return candidate as ToolHandlers;
}

/**
 * The environment preparer a handlers module exports as `prepare` (fields its simulation
 * derives on load), or undefined when it exports none; CONFIG_INVALID when `prepare` is not
 * a function.
 */
export async function loadPreparerModule(file: string): Promise<EnvironmentPreparer | undefined> {
  const path = resolve(file);
  const module = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  if (module.prepare === undefined) return undefined;
  if (typeof module.prepare !== "function") {
    throw new YokeError("CONFIG_INVALID", `${path}: prepare is not a function (state) => state`, { details: { file: path, field: "prepare" } });
  }
  return module.prepare as EnvironmentPreparer;
}

function policyEngine(document: unknown): PolicyEngineV1 {
  return createPolicyEngine(loadPolicy(document as never));
}

/**
 * What to run for one suite: handlers (`--handlers`, else built in by name, else refused
 * naming the tools without one), the policy (`--policy`; else the dev suite's shipped one;
 * else, or with `--default-policy`, the one derived from `tools.json`) and the declarations
 * it is written against (`--tools`; else `<policy>.tools.json` beside it; else derived).
 */
export async function targetFor(suite: SuiteData, args: SecurityArgs, shipped: boolean): Promise<SuiteTarget> {
  const handlers = checkHandlers(suite, args.handlers === undefined ? builtInHandlers(suite.name) : await loadHandlersModule(args.handlers), args.handlers);
  const prepare = args.handlers === undefined ? builtInPrepare(suite.name) : await loadPreparerModule(args.handlers);
  const shippedPolicy = join(POLICIES_DIR, `${suite.name}.json`);
  const policyFile = args.policy ?? (shipped && !args.defaultPolicy && existsSync(shippedPolicy) ? shippedPolicy : undefined);
  const besidePolicy = policyFile?.replace(/(\.json)?$/, ".tools.json");
  const declarationsFile = args.tools ?? (besidePolicy !== undefined && existsSync(besidePolicy) ? besidePolicy : undefined);
  const declarations = declarationsFile === undefined ? defaultDeclarationsFor(suite.tools, suite.name) : loadToolDeclarations(declarationsFile);
  checkDeclarations(suite, declarations, declarationsFile ?? "the declarations derived from tools.json");
  let policy: PolicyEngineV1;
  if (policyFile === undefined) policy = policyEngine(defaultPolicyFor(suite.tools, suite.name));
  else {
    if (!existsSync(policyFile)) throw new YokeError("CONFIG_INVALID", `no policy file at ${policyFile}`, { details: { file: policyFile, field: null } });
    let text: unknown;
    try {
      text = JSON.parse(readFileSync(policyFile, "utf8"));
    } catch (error) {
      throw new YokeError("CONFIG_INVALID", `${policyFile} is not JSON: ${(error as Error).message}`, { details: { file: policyFile, field: null } });
    }
    policy = policyEngine(text);
  }
  return {
    suite,
    handlers,
    ...(prepare === undefined ? {} : { prepare }),
    declarations,
    declarationsSource: declarationsFile ?? "derived from tools.json",
    policy,
    policySource: policyFile ?? "derived from tools.json (defaultPolicyFor)",
  };
}

/** The suites the arguments name (`--suite`), or the dev suites: bundled ones from the testkit, the others from the shared data set once the testkit has their handlers. */
export function suitesFor(args: SecurityArgs): { readonly suites: readonly SuiteData[]; readonly shipped: boolean; readonly skipped: readonly string[] } {
  if (args.suites.length > 0) return { suites: args.suites.map(loadSuite), shipped: false, skipped: [] };
  const suites: SuiteData[] = [];
  const skipped: string[] = [];
  for (const name of DEV_SUITES) {
    if (SUITE_NAMES.includes(name)) suites.push(agentDojoSuite(name));
    else if (builtInHandlers(name) !== undefined && existsSync(join(SHARED_SUITES_DIR, name))) suites.push(loadSuite(join(SHARED_SUITES_DIR, name)));
    else skipped.push(name);
  }
  return { suites, shipped: true, skipped };
}

/** Runs one suite in each mode asked for (default: all four), each user task and pair through a fresh runtime. */
export async function runTarget(target: SuiteTarget, args: Pick<SecurityArgs, "userTasks" | "injectionTasks" | "modes">): Promise<SuiteResults> {
  const modes = SECURITY_MODES.filter((mode) => args.modes === undefined || args.modes.includes(mode));
  const unknown = (args.modes ?? []).filter((mode) => !(SECURITY_MODES as readonly string[]).includes(mode));
  if (unknown.length > 0)
    throw new YokeError("CONFIG_INVALID", `unknown mode ${unknown.join(", ")} (modes: ${SECURITY_MODES.join(", ")})`, { details: { field: "--modes" } });
  for (const [flag, ids, known] of [
    ["--user-tasks", args.userTasks, target.suite.userTasks],
    ["--injection-tasks", args.injectionTasks, target.suite.injectionTasks],
  ] as const) {
    const missing = (ids ?? []).filter((id) => !known.some((task) => task.id === id));
    if (missing.length > 0)
      throw new YokeError("CONFIG_INVALID", `${flag}: the ${target.suite.name} suite has no ${missing.join(", ")}`, { details: { field: flag, missing } });
  }
  const policy = () => target.policy;
  // The policy modes plan a delegation from the user task (GROUND_TRUTH_PLANNER_NOTE); the undefended mode has none.
  const planner = (setup: PairSetup) => groundTruthPlanner(setup.userTask);
  const harnesses = {
    undefended: runtimeHarness(),
    nobody: runtimeHarness({ policy, planner, approver: () => denyAllApprover }),
    honest: runtimeHarness({ policy, planner, approver: (setup) => honestApprover({ prompt: setup.userTask.prompt, tools: setup.suite.tools }) }),
    rubberStamp: runtimeHarness({ policy, planner, approver: () => rubberStampApprover }),
  } as const;
  const reports: Partial<Record<SecurityMode, SuiteReport>> = {};
  for (const mode of modes) {
    const run = await runSuite({
      suite: target.suite,
      harness: harnesses[mode],
      handlers: target.handlers,
      ...(target.prepare === undefined ? {} : { prepare: target.prepare }),
      declarations: target.declarations,
      ...(args.userTasks === undefined ? {} : { userTasks: args.userTasks }),
      ...(args.injectionTasks === undefined ? {} : { injectionTasks: args.injectionTasks }),
    });
    reports[mode] = suiteReport(run, mode);
  }
  return { suite: target.suite.name, policy: target.policySource, declarations: target.declarationsSource, modes: reports };
}
