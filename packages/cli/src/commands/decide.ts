import type { ApprovalRecord } from "@yoke/protocol";
import { createApprovalDesk } from "@yoke/runtime";
import type { CommandContext } from "../cli/context.js";
import { usageError } from "../cli/exit-codes.js";
import { parse, positiveInteger } from "../cli/parse.js";
import { findRun } from "../inspect/load-run.js";

export const APPROVE_USAGE = "yoke approve <run> <approval> --by NAME [--expires-at EPOCH_MS] [--tenant T] [--journal FILE] [--json]";
export const DENY_USAGE = "yoke deny <run> <approval> --by NAME --reason TEXT [--tenant T] [--journal FILE] [--json]";

/**
 * `yoke approve <run> <approval> --by NAME`: grants an approval a run waits for, as
 * `harness.approve` would (the request must still wait; one that expired is voided and
 * refused, APPROVAL_EXPIRED), under the run's lease. The run moves on when a harness resumes
 * it (`yoke resume`, or the application's own worker).
 */
export function approveCommand(context: CommandContext): Promise<number> {
  return decide(context, "approve");
}

/** `yoke deny <run> <approval> --by NAME --reason TEXT`: denies it; the model is told the reason when the run resumes. */
export function denyCommand(context: CommandContext): Promise<number> {
  return decide(context, "deny");
}

async function decide(context: CommandContext, verb: "approve" | "deny"): Promise<number> {
  const usage = verb === "approve" ? APPROVE_USAGE : DENY_USAGE;
  const { values, positionals } = parse(
    context.args,
    { by: { type: "string" }, reason: { type: "string" }, "expires-at": { type: "string" } },
    { min: 2, max: 2, usage },
  );
  if (values.help) {
    context.out.lines([`usage: ${usage}`]);
    return 0;
  }
  if (values.by === undefined || values.by === "") throw usageError("--by NAME is required: who decides is journaled with the decision", usage);
  if (verb === "deny" && values.reason === undefined) throw usageError("--reason TEXT is required: the model is told why", usage);
  if (verb === "approve" && values.reason !== undefined) throw usageError("--reason is for deny", usage);
  if (verb === "deny" && values["expires-at"] !== undefined) throw usageError("--expires-at is for approve", usage);
  const expiresAt = positiveInteger(values["expires-at"], "--expires-at");
  const journal = await context.open(values.journal, { write: true });
  try {
    const [runArgument, approvalId] = positionals as [string, string];
    const scope = await findRun(journal, runArgument, values.tenant);
    const desk = createApprovalDesk({ journal, tenantId: scope.tenantId });
    const decided: ApprovalRecord =
      verb === "approve"
        ? await desk.approve(scope.runId, approvalId, { approver: values.by, ...(expiresAt === undefined ? {} : { expiresAt }) })
        : await desk.deny(scope.runId, approvalId, { approver: values.by, reason: values.reason! });
    if (values.json) context.out.json({ ...scope, approvalId, status: decided.status, actionId: decided.actionId });
    else context.out.lines([`approval ${approvalId} of run ${scope.runId}: ${decided.status} by ${values.by}; the run moves on when it is resumed`]);
    return 0;
  } finally {
    await journal.close();
  }
}
