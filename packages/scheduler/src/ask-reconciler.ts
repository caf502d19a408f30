import type { JsonValue, ReconcileResult, AnyToolDeclaration } from "@yoke/protocol";
import { messageOf } from "./envelopes.js";

/**
 * Whether an uncertain effect happened. The tool's reconciler decides; without one, a
 * `none` or `idempotent` tool is `retry_safe` (another attempt under the same key does no
 * harm) and any other is `unknown`. A reconciler that throws answers `unknown`. `fencing`: the
 * token of the run's lease, handed to the reconciler with the action id and receipt.
 */
export async function askReconciler(
  tool: AnyToolDeclaration,
  actionId: string,
  receipt: JsonValue | undefined,
  fencing: { readonly fencingToken?: number },
): Promise<Exclude<ReconcileResult, { status: "unknown" }> | { status: "retry_safe" } | { status: "unknown"; reason: string }> {
  if (tool.reconcile) {
    try {
      const answer = await tool.reconcile(actionId, receipt, { actionId, receipt, ...fencing });
      if (answer.status === "unknown")
        return { status: "unknown", reason: answer.reason ?? `the reconciler of ${tool.name} could not tell whether action ${actionId} applied` };
      return answer;
    } catch (error) {
      return { status: "unknown", reason: `the reconciler of ${tool.name} failed: ${messageOf(error)}` };
    }
  }
  if (tool.sideEffect === "none" || tool.sideEffect === "idempotent") return { status: "retry_safe" };
  return { status: "unknown", reason: `${tool.name} is ${tool.sideEffect} and has no reconciler: whether action ${actionId} applied is unknown` };
}
