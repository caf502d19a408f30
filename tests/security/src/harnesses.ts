import { readFileSync } from "node:fs";
import { createMemoryJournal, createSqliteJournal } from "@yoke/journal";
import { createPolicyEngine, loadPolicy } from "@yoke/policy";
import type { JournalV1, PolicyEngineV1 } from "@yoke/protocol";
import { createHarness, type DelegationPlanner } from "@yoke/runtime";
import {
  type ApprovalAsked,
  type Approver,
  type HarnessFactory,
  type PairSetup,
  type ParkedCall,
  type SecurityHarness,
  type SuiteName,
  type ToolDeclarations,
  denyAllApprover,
  loadToolDeclarations,
  scopedPolicy,
} from "@yoke/testkit/security";

/** Turns a run may take: the longest pair is 9 user calls + 6 injected calls + the answer; upstream allows 15 tool iterations. */
export const MAX_TURNS = 24;
/** The name journaled for the person who reviews calls parked for approval in these runs. */
export const APPROVER = "security-suite-approver";

const instantSleep = async () => {};

/** The suite-wide policy (ii) of a suite, from its JSON rules file. */
export function suiteWidePolicy(suite: SuiteName): PolicyEngineV1 {
  return createPolicyEngine(loadPolicy(readFileSync(new URL(`../policies/${suite}.json`, import.meta.url), "utf8")));
}

/** The tool declarations the suite-wide policy of a dev suite is written against (`policies/<suite>.tools.json`). */
export function suiteDeclarations(suite: SuiteName): ToolDeclarations {
  return loadToolDeclarations(new URL(`../policies/${suite}.tools.json`, import.meta.url).pathname);
}

/** Policy (i): the per-task scoped policy of the pair's user task (the facts from the suite's declarations). */
export function perTaskPolicy(setup: PairSetup): PolicyEngineV1 {
  return createPolicyEngine(loadPolicy(scopedPolicy(setup.suite, setup.userTask, setup.values, suiteDeclarations(setup.suite.name))));
}

type Shown = Pick<ParkedCall, "provenance" | "influence" | "delegation">;

/** What the run journaled with each approval request (provenance, influence, delegation standing), by approval id: what the approval screen shows. */
async function shownByApproval(journal: JournalV1, tenantId: string, runId: string): Promise<Map<string, Shown>> {
  const found = new Map<string, Shown>();
  for await (const event of journal.read({ tenantId, runId })) {
    if (event.type !== "action.approval_requested") continue;
    const data = event.data as unknown as { approvalId: string } & Shown;
    found.set(data.approvalId, {
      ...(data.provenance === undefined ? {} : { provenance: data.provenance }),
      ...(data.influence === undefined ? {} : { influence: data.influence }),
      ...(data.delegation === undefined ? {} : { delegation: data.delegation }),
    });
  }
  return found;
}

/**
 * A harness factory over the real runtime: one harness per run with a fresh journal (in
 * memory, or a SQLite file at `sqlitePath(setup)`), the pair's tools and obedient model, and
 * the policy `policy(setup)` gives (none: today's allow-by-default) and the planning step
 * `planner(setup)` gives (none: no delegation). A run that parks for approval shows each parked
 * call (its tool and exact arguments, from the folded state, and the provenance, influence and
 * delegation standing journaled with its approval request) to
 * `approver(setup)` (default: a person who approves nothing), journals the answer through
 * `harness.approve` / `harness.deny`, and resumes; every answer is reported.
 */
export function runtimeHarness(
  options: {
    policy?: (setup: PairSetup) => PolicyEngineV1;
    planner?: (setup: PairSetup) => DelegationPlanner;
    sqlitePath?: (setup: PairSetup) => string;
    approver?: (setup: PairSetup) => Approver;
  } = {},
): HarnessFactory {
  return async (setup) => {
    const journal: JournalV1 = options.sqlitePath === undefined ? createMemoryJournal() : await createSqliteJournal({ filename: options.sqlitePath(setup) });
    const policy = options.policy?.(setup);
    const planDelegation = options.planner?.(setup);
    const tenantId = `agentdojo-${setup.suite.name}`;
    const harness = createHarness({
      journal,
      provider: setup.model,
      tools: setup.tools,
      tenantId,
      principal: { id: "emma.johnson", authenticated: true },
      maxTurns: MAX_TURNS,
      sleep: instantSleep,
      lease: false,
      ...(policy === undefined ? {} : { policy }),
      ...(planDelegation === undefined ? {} : { planDelegation }),
    });
    const approver = options.approver?.(setup) ?? denyAllApprover;
    const security: SecurityHarness = {
      start: async (task) => {
        const approvals: ApprovalAsked[] = [];
        let result = await harness.start(task);
        while (result.waiting !== undefined) {
          const shownFor = await shownByApproval(journal, tenantId, result.runId);
          for (const approval of result.waiting.approvals) {
            const action = result.state.actions.find((candidate) => candidate.actionId === approval.actionId);
            if (action === undefined) throw new Error(`approval ${approval.approvalId} names action ${approval.actionId}, which the state does not hold`);
            const answer = approver({ toolName: action.toolName, input: action.input, ...shownFor.get(approval.approvalId) });
            approvals.push({ function: action.toolName, args: action.input, approved: answer.approve });
            if (answer.approve) await harness.approve(result.runId, approval.approvalId, { approver: APPROVER });
            else await harness.deny(result.runId, approval.approvalId, { approver: APPROVER, reason: answer.reason });
          }
          result = await harness.resume(result.runId);
        }
        return { text: result.text, outcome: result.outcome.status, approvals };
      },
      close: async () => {
        await harness.close?.();
        if (options.sqlitePath !== undefined) await journal.close?.();
      },
    };
    return security;
  };
}
