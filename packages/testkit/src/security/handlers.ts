import { YokeError } from "@yoke/protocol";
import { bankingImplementations } from "./banking-tools.js";
import { slackImplementations } from "./slack-tools.js";
import type { ToolImplementation } from "./tool-support.js";
import type { SuiteData } from "./types.js";

/** A suite's tool implementations (its environment simulation), by tool name. */
export type ToolHandlers = Readonly<Record<string, ToolImplementation>>;

/** The handlers the testkit ships, by suite name. */
const BUILT_IN: Readonly<Record<string, ToolHandlers>> = {
  banking: bankingImplementations,
  slack: slackImplementations,
  // The workspace suite's handlers (workspace-tools.ts, `workspaceImplementations`) are registered here.
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
  return Object.hasOwn(BUILT_IN, suiteName) ? BUILT_IN[suiteName] : undefined;
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
