/*! AgentDojo v1 dev set (banking, slack) converted to JSON. Copyright (c) 2024 Edoardo Debenedetti, Jie Zhang, Mislav Balunovic, Luca Beurer-Kellner, Marc Fischer, and Florian Tramèr. MIT License: see LICENSE-agentdojo.txt in @yoke/testkit. Source: github.com/ethz-spylab/agentdojo. */
import bankingEnvironment from "./data/banking/environment.json" with { type: "json" };
import bankingInjectionTasks from "./data/banking/injection-tasks.json" with { type: "json" };
import bankingYokeInjectionTasks from "./data/banking/yoke-injection-tasks.json" with { type: "json" };
import bankingVectors from "./data/banking/injection-vectors.json" with { type: "json" };
import bankingTools from "./data/banking/tools.json" with { type: "json" };
import bankingUserTasks from "./data/banking/user-tasks.json" with { type: "json" };
import slackEnvironment from "./data/slack/environment.json" with { type: "json" };
import slackInjectionTasks from "./data/slack/injection-tasks.json" with { type: "json" };
import slackYokeInjectionTasks from "./data/slack/yoke-injection-tasks.json" with { type: "json" };
import slackVectors from "./data/slack/injection-vectors.json" with { type: "json" };
import slackTools from "./data/slack/tools.json" with { type: "json" };
import slackUserTasks from "./data/slack/user-tasks.json" with { type: "json" };
import { YokeError } from "@yoke/protocol";
import type { JsonObject, SuiteData, SuiteName } from "./types.js";

/*
 * The data files are copied verbatim from the data set (MIT; the notice travels as
 * src/security/data/LICENSE-agentdojo.txt and as LICENSE-agentdojo.txt in the published
 * package) and bundled into the build, so no path has to be given at run time.
 */

const injectionTasksOf = (file: unknown) => (file as Pick<SuiteData, "injectionTasks">).injectionTasks;

/*
 * Each suite's injection tasks are upstream's, then Yoke's own attack shapes
 * (`yoke-injection-tasks.json`, same format plus `plants`): upstream's data stays verbatim.
 */
const SUITES: Readonly<Record<string, SuiteData>> = {
  banking: {
    name: "banking",
    environment: bankingEnvironment as unknown as JsonObject,
    vectors: (bankingVectors as unknown as Pick<SuiteData, "vectors">).vectors,
    tools: (bankingTools as unknown as Pick<SuiteData, "tools">).tools,
    userTasks: (bankingUserTasks as unknown as Pick<SuiteData, "userTasks">).userTasks,
    injectionTasks: [...injectionTasksOf(bankingInjectionTasks), ...injectionTasksOf(bankingYokeInjectionTasks)],
  },
  slack: {
    name: "slack",
    environment: slackEnvironment as unknown as JsonObject,
    vectors: (slackVectors as unknown as Pick<SuiteData, "vectors">).vectors,
    tools: (slackTools as unknown as Pick<SuiteData, "tools">).tools,
    userTasks: (slackUserTasks as unknown as Pick<SuiteData, "userTasks">).userTasks,
    injectionTasks: [...injectionTasksOf(slackInjectionTasks), ...injectionTasksOf(slackYokeInjectionTasks)],
  },
};

/** The suites bundled with the testkit (any other suite folder loads with `loadSuite`). */
export const SUITE_NAMES: readonly SuiteName[] = ["banking", "slack"];

/**
 * One suite of the AgentDojo v1 dev set: its environment (placeholders as literal text),
 * injection vectors, tool descriptions, user tasks and injection tasks, as converted in the
 * data set (MIT; see LICENSE-agentdojo.txt). The returned data is shared: do not mutate it.
 *
 * @example
 * ```ts
 * const banking = agentDojoSuite("banking");
 * banking.userTasks.length; // 16
 * banking.injectionTasks.length; // 10 (9 upstream, 1 Yoke)
 * ```
 */
export function agentDojoSuite(name: SuiteName): SuiteData {
  const suite = SUITES[name];
  if (suite === undefined || !Object.hasOwn(SUITES, name)) {
    throw new YokeError(
      "CONFIG_INVALID",
      `no bundled suite named ${JSON.stringify(name)} (bundled: ${SUITE_NAMES.join(", ")}); load a suite folder with loadSuite`,
      {
        details: { suite: name, bundled: [...SUITE_NAMES] },
      },
    );
  }
  return suite;
}
