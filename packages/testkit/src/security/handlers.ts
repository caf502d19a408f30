import { YokeError } from "@yoke/protocol";
import { bankingImplementations } from "./banking-tools.js";
import { slackImplementations } from "./slack-tools.js";
import type { ToolImplementation } from "./tool-support.js";
import type { JsonObject, SuiteData } from "./types.js";
import { withWorkspaceDerivedFields, workspaceImplementations } from "./workspace-tools.js";

/** A suite's tool implementations (its environment simulation), by tool name. */
export type ToolHandlers = Readonly<Record<string, ToolImplementation>>;

/**
 * What a suite's simulation derives from a freshly built environment before a run (fields
 * the real system computes on load, such as a file's size), applied to the environment the
 * checks see as `pre` and the tools start from. It may change `state` in place.
 */
export type EnvironmentPreparer = (state: JsonObject) => JsonObject;

/** A suite's handlers and, when its simulation derives fields on load, its preparer. */
export interface SuiteSimulation {
  readonly handlers: ToolHandlers;
  readonly prepare?: EnvironmentPreparer;
}

/** The simulations the testkit ships, by suite name. */
const BUILT_IN: Readonly<Record<string, SuiteSimulation>> = {
  banking: { handlers: bankingImplementations },
  slack: { handlers: slackImplementations },
  workspace: { handlers: workspaceImplementations, prepare: withWorkspaceDerivedFields },
};

/** The suite names the testkit has handlers for. */
export const BUILT_IN_HANDLER_SUITES: readonly string[] = Object.keys(BUILT_IN);

/**
 * The built-in handlers of a suite, by its name; `undefined` when the testkit has none (give
 * the runner your own with `--handlers`).
 *
 * @example
 * ```ts
 * builtInHandlers("banking")?.send_money; // the simulated transfer
 * ```
 */
export function builtInHandlers(suiteName: string): ToolHandlers | undefined {
  return Object.hasOwn(BUILT_IN, suiteName) ? BUILT_IN[suiteName]!.handlers : undefined;
}

/**
 * The preparer of a built-in suite's environment, by its name; `undefined` when its
 * simulation derives nothing on load, or the testkit has no handlers for it.
 *
 * @example
 * ```ts
 * builtInPrepare("workspace")?.(state); // every file's size computed from its content
 * ```
 */
export function builtInPrepare(suiteName: string): EnvironmentPreparer | undefined {
  return Object.hasOwn(BUILT_IN, suiteName) ? BUILT_IN[suiteName]!.prepare : undefined;
}

/**
 * Checks that `handlers` implement every tool of the suite: CONFIG_INVALID naming each tool
 * without one (`details.missing`), so a suite is refused before it runs.
 */
export function checkHandlers(suite: SuiteData, handlers: ToolHandlers | undefined, source = `the built-in handlers of ${suite.name}`): ToolHandlers {
  const missing = suite.tools.map((tool) => tool.name).filter((name) => handlers === undefined || !Object.hasOwn(handlers, name));
  if (handlers === undefined || missing.length > 0) {
    const why = handlers === undefined ? `the testkit has no handlers for suite ${suite.name}` : `${source} implement no ${missing.join(", ")}`;
    throw new YokeError("CONFIG_INVALID", `${why}: give a module exporting a Record<string, ToolImplementation> for its tools (${missing.join(", ")})`, {
      details: { suite: suite.name, missing },
    });
  }
  return handlers;
}
