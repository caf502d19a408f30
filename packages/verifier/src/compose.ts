import { type BudgetAmounts, type VerifierInput, type VerifierV1, type VerifierVerdict, YokeError } from "@yoke/protocol";
import { cancelled, defineVerifier } from "./define-verifier.js";

type Mode = "all" | "any" | "sequence";

/**
 * Every member must pass. All members run, one after another in order (so the model learns
 * every failure at once); `children` holds their verdicts.
 *
 * @example
 * ```ts
 * const gate = all("gate", [commandVerifier({ id: "tests", command: "npm", args: ["test"], timeoutMs: 120_000 }), evidenceVerifier({ id: "evidence" })]);
 * ```
 */
export function all(id: string, verifiers: readonly VerifierV1[]): VerifierV1 {
  return compose("all", id, verifiers);
}

/**
 * At least one member must pass. Members run in order until one passes; `children` holds the
 * verdicts of those that ran.
 *
 * @example
 * ```ts
 * const shaped = any("shaped", [schemaVerifier({ id: "v2", schema: reportV2 }), schemaVerifier({ id: "v1", schema: reportV1 })]);
 * ```
 */
export function any(id: string, verifiers: readonly VerifierV1[]): VerifierV1 {
  return compose("any", id, verifiers);
}

/**
 * Every member must pass, checked in order, stopping at the first failure (the later ones,
 * often slower, do not run); `children` holds the verdicts of those that ran.
 *
 * @example
 * ```ts
 * const gate = sequence("gate", [schemaVerifier({ id: "shape", schema }), commandVerifier({ id: "tests", command: "npm", args: ["test"], timeoutMs: 120_000 })]);
 * ```
 */
export function sequence(id: string, verifiers: readonly VerifierV1[]): VerifierV1 {
  return compose("sequence", id, verifiers);
}

/**
 * Shared by the three: replay-safe only when every member is; `reserve` is the sum of the
 * members' (a worst case: `all` and `sequence` may run them all, `any` too when none passes).
 * A member that rejects rejects the composition. `retry`: a failed `all`/`sequence` can be
 * fixed by the model unless a failing member says `retry: false`; a failed `any` unless every
 * member says so. `escalate` when a failing member asks for it.
 */
function compose(mode: Mode, id: string, verifiers: readonly VerifierV1[]): VerifierV1 {
  if (!Array.isArray(verifiers) || verifiers.length === 0) throw new YokeError("CONFIG_INVALID", `verifier "${id}": ${mode}() needs at least one verifier`);
  const ids = new Set<string>();
  for (const verifier of verifiers) {
    if (verifier?.specificationVersion !== "v1" || typeof verifier.verify !== "function") {
      throw new YokeError("CONFIG_INVALID", `verifier "${id}": ${mode}() members must be VerifierV1 objects`);
    }
    if (ids.has(verifier.id) || verifier.id === id)
      throw new YokeError("CONFIG_INVALID", `verifier "${id}": the id "${verifier.id}" is used twice`, { details: { verifierId: id, duplicate: verifier.id } });
    ids.add(verifier.id);
  }
  const members = [...verifiers];
  const reserve = sumReserves(members);
  return defineVerifier({
    id,
    kind: mode,
    replaySafe: members.every((verifier) => verifier.replaySafe),
    description: `${mode} of ${members.map((verifier) => verifier.id).join(", ")}`,
    ...(reserve === undefined ? {} : { reserve }),
    async verify(input: VerifierInput) {
      const children: VerifierVerdict[] = [];
      for (const verifier of members) {
        if (input.signal.aborted) throw cancelled(input.signal, id, { ran: children.map((child) => child.verifierId) });
        const verdict = await verifier.verify(input);
        children.push(verdict);
        if (mode === "sequence" && !verdict.passed) break;
        if (mode === "any" && verdict.passed) break;
      }
      const failed = children.filter((child) => !child.passed);
      const passed = mode === "any" ? failed.length < children.length : failed.length === 0;
      if (passed) return { passed: true, children };
      const retry = mode === "any" ? failed.some((child) => child.retry !== false) : failed.every((child) => child.retry !== false);
      const escalate = failed.some((child) => child.escalate === true);
      const reason =
        (mode === "any" ? `none of ${members.map((verifier) => `"${verifier.id}"`).join(", ")} passed:\n` : "") +
        failed.map((child) => `${child.verifierId}: ${child.reason ?? "did not pass"}`).join("\n");
      return { passed: false, reason, retry, ...(escalate ? { escalate } : {}), children };
    },
  });
}

function sumReserves(verifiers: readonly VerifierV1[]): BudgetAmounts | undefined {
  const reserves = verifiers.flatMap((verifier) => (verifier.reserve === undefined ? [] : [verifier.reserve]));
  if (reserves.length === 0) return undefined;
  const sum: Record<string, number> = {};
  for (const reserve of reserves) {
    for (const [dimension, amount] of Object.entries(reserve)) if (amount !== undefined) sum[dimension] = (sum[dimension] ?? 0) + amount;
  }
  return sum as BudgetAmounts;
}
