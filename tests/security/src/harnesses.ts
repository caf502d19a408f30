import { createMemoryJournal, createSqliteJournal } from "@yoke/journal";
import type { JournalV1 } from "@yoke/protocol";
import { createHarness } from "@yoke/runtime";
import type { HarnessFactory, PairSetup, SecurityHarness } from "@yoke/testkit/security";

/** Turns a run may take: the longest pair is 9 user calls + 6 injected calls + the answer; upstream allows 15 tool iterations. */
export const MAX_TURNS = 24;

const instantSleep = async () => {};

/** What a harness gets besides the tools and the model (a policy, once there is one). */
export type HarnessExtras = (setup: PairSetup) => Record<string, unknown>;

/**
 * A harness factory over the real runtime: one harness per run with a fresh journal (in
 * memory, or a SQLite file at `sqlitePath(setup)`), the pair's tools and obedient model.
 */
export function runtimeHarness(options: { extras?: HarnessExtras; sqlitePath?: (setup: PairSetup) => string } = {}): HarnessFactory {
  return async (setup) => {
    const journal: JournalV1 = options.sqlitePath === undefined ? createMemoryJournal() : await createSqliteJournal({ filename: options.sqlitePath(setup) });
    const harness = createHarness({
      journal,
      provider: setup.model,
      tools: setup.tools,
      tenantId: `agentdojo-${setup.suite.name}`,
      maxTurns: MAX_TURNS,
      sleep: instantSleep,
      lease: false,
      ...options.extras?.(setup),
    });
    const security: SecurityHarness = {
      start: async (task) => {
        const result = await harness.start(task);
        return { text: result.text, outcome: result.outcome.status };
      },
      close: async () => {
        await harness.close?.();
        if (options.sqlitePath !== undefined) await journal.close?.();
      },
    };
    return security;
  };
}
