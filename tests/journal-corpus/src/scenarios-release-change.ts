// Scenarios of a run driven by another release than the one it pinned: a compatible deploy
// between two calls (release.changed) and an incompatible one through a declared migration
// (release.migrated). The first harness is release 1.4.0; the person's answer comes to a
// successor harness of the next release on the same journal.
import { refuse, say } from "@yoke/testkit";
import { RUN } from "./corpus-kit.js";
import type { Scenario } from "./scenario.js";
import { echoTool, noted } from "./scenario-tools.js";

const FIRST = "@yoke/runtime@1.4.0";

export const RELEASE_CHANGE_SCENARIOS: readonly Scenario[] = [
  {
    name: "release-changed",
    about: "a run started by 1.4.0 waits for a person; 1.5.0 (compatible: same major) lands the answer: release.changed, then the run goes on pinned to 1.5.0",
    world: () => ({
      script: { queues: [[refuse("I need to know which account you mean."), say("Done for the savings account.")]] },
      options: { tools: [echoTool], runtimeVersion: FIRST },
    }),
    drive: async (context) => {
      const lines: string[] = [];
      await noted(lines, context, () => context.harness.start("Move the money.", { runId: RUN }));
      const next = context.env.successor({ runtimeVersion: "@yoke/runtime@1.5.0" });
      await noted(lines, context, () => next.resume(RUN, { input: "The savings account." }));
      return lines;
    },
    sqlite: true,
  },
  {
    name: "release-migrated",
    about:
      "a run started by 1.4.0 waits for a person; 2.0.0 (incompatible: another major) drives it through a declared migration: release.migrated, then the run goes on",
    world: () => ({
      script: { queues: [[refuse("I need to know which account you mean."), say("Done for the savings account.")]] },
      options: { tools: [echoTool], runtimeVersion: FIRST },
    }),
    drive: async (context) => {
      const lines: string[] = [];
      await noted(lines, context, () => context.harness.start("Move the money.", { runId: RUN }));
      const next = context.env.successor({
        runtimeVersion: "@yoke/runtime@2.0.0",
        releases: { migrations: [{ id: "1.4-to-2.0", from: FIRST, to: "@yoke/runtime@2.0.0", migrate: () => [] }] },
      });
      await noted(lines, context, () => next.resume(RUN, { input: "The savings account." }));
      return lines;
    },
    sqlite: true,
  },
];
