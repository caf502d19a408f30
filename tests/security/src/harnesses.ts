import { readFileSync } from "node:fs";
import { createMemoryJournal, createSqliteJournal } from "@yoke/journal";
import { createPolicyEngine, loadPolicy } from "@yoke/policy";
import type { JournalV1, PolicyEngineV1 } from "@yoke/protocol";
import { createHarness } from "@yoke/runtime";
import { type HarnessFactory, type PairSetup, type SecurityHarness, type SuiteName, scopedPolicy } from "@yoke/testkit/security";

/** Turns a run may take: the longest pair is 9 user calls + 6 injected calls + the answer; upstream allows 15 tool iterations. */
export const MAX_TURNS = 24;
/** Who reviews a call parked for approval in these runs: a person who approves nothing (the worst case for utility). */
export const APPROVER = "security-suite-approver";

const instantSleep = async () => {};

/** The suite-wide policy (ii) of a suite, from its JSON rules file. */
export function suiteWidePolicy(suite: SuiteName): PolicyEngineV1 {
  return createPolicyEngine(loadPolicy(readFileSync(new URL(`../policies/${suite}.json`, import.meta.url), "utf8")));
}

/** Policy (i): the per-task scoped policy of the pair's user task. */
export function perTaskPolicy(setup: PairSetup): PolicyEngineV1 {
  return createPolicyEngine(loadPolicy(scopedPolicy(setup.suite, setup.userTask, setup.values)));
}

/**
 * A harness factory over the real runtime: one harness per run with a fresh journal (in
 * memory, or a SQLite file at `sqlitePath(setup)`), the pair's tools and obedient model, and
 * the policy `policy(setup)` gives (none: today's allow-by-default). A run that parks for
 * approval is shown to the approver, who denies it, and resumed: the model is told and goes on.
 */
export function runtimeHarness(options: { policy?: (setup: PairSetup) => PolicyEngineV1; sqlitePath?: (setup: PairSetup) => string } = {}): HarnessFactory {
  return async (setup) => {
    const journal: JournalV1 = options.sqlitePath === undefined ? createMemoryJournal() : await createSqliteJournal({ filename: options.sqlitePath(setup) });
    const policy = options.policy?.(setup);
    const harness = createHarness({
      journal,
      provider: setup.model,
      tools: setup.tools,
      tenantId: `agentdojo-${setup.suite.name}`,
      principal: { id: "emma.johnson", authenticated: true },
      maxTurns: MAX_TURNS,
      sleep: instantSleep,
      lease: false,
      ...(policy === undefined ? {} : { policy }),
    });
    const security: SecurityHarness = {
      start: async (task) => {
        let result = await harness.start(task);
        while (result.waiting !== undefined) {
          for (const approval of result.waiting.approvals) {
            await harness.deny(result.runId, approval.approvalId, { approver: APPROVER, reason: "not approved by the security suite's approver" });
          }
          result = await harness.resume(result.runId);
        }
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
