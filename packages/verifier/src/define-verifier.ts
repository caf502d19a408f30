import {
  type BudgetAmounts,
  BudgetAmountsSchema,
  type VerifierInput,
  type VerifierV1,
  type VerifierVerdict,
  VerifierVerdictSchema,
  YokeError,
} from "@yoke/protocol";

/** What `defineVerifier` is given: the verifier's data and the check itself. */
export interface VerifierDefinition {
  readonly id: string;
  readonly kind: string;
  readonly replaySafe: boolean;
  readonly description?: string;
  readonly reserve?: BudgetAmounts;
  /** The check; `defineVerifier` stamps the verdict with `id` and `kind`. */
  verify(input: VerifierInput): Promise<Omit<VerifierVerdict, "verifierId" | "kind">>;
}

/**
 * A `VerifierV1` from its data and a check, with the contract every verifier of this package
 * keeps: an aborted signal rejects with YokeError CANCELLED before any work; the verdict names
 * this verifier (`verifierId`, `kind`) and is checked against `VerifierVerdictSchema`; any
 * error that is not a YokeError becomes VERIFIER_FAILED (`cause` keeps it). Throws
 * CONFIG_INVALID for an empty id or kind, or a reserve that is not integer amounts.
 *
 * @example
 * ```ts
 * const hasSummary = defineVerifier({
 *   id: "summary-written",
 *   kind: "custom",
 *   replaySafe: true,
 *   verify: async ({ answer }) => (answer.text.includes("Summary") ? { passed: true } : { passed: false, reason: "no summary in the answer" }),
 * });
 * ```
 */
export function defineVerifier(definition: VerifierDefinition): VerifierV1 {
  const { id, kind, replaySafe, description, reserve } = definition;
  if (typeof id !== "string" || id.length === 0) throw new YokeError("CONFIG_INVALID", "a verifier needs a non-empty id", { details: { kind } });
  if (typeof kind !== "string" || kind.length === 0)
    throw new YokeError("CONFIG_INVALID", `verifier "${id}" needs a non-empty kind`, { details: { verifierId: id } });
  if (reserve !== undefined && !BudgetAmountsSchema.safeParse(reserve).success) {
    throw new YokeError("CONFIG_INVALID", `verifier "${id}": reserve must be non-negative integer budget amounts`, { details: { verifierId: id } });
  }
  const check = definition.verify;
  return {
    specificationVersion: "v1",
    id,
    kind,
    replaySafe,
    ...(description === undefined ? {} : { description }),
    ...(reserve === undefined ? {} : { reserve }),
    async verify(input: VerifierInput): Promise<VerifierVerdict> {
      throwIfAborted(input.signal, id);
      let outcome: Omit<VerifierVerdict, "verifierId" | "kind">;
      try {
        outcome = await check(input);
      } catch (error) {
        throw asYokeError(error, id);
      }
      const verdict = { verifierId: id, kind, ...outcome };
      const parsed = VerifierVerdictSchema.safeParse(verdict);
      if (!parsed.success) {
        throw new YokeError("VERIFIER_FAILED", `verifier "${id}" returned a malformed verdict: ${parsed.error.message}`, { details: { verifierId: id } });
      }
      return verdict;
    },
  };
}

/** Rejects with CANCELLED (the signal's reason as `cause`) when `signal` has aborted. */
export function throwIfAborted(signal: AbortSignal, verifierId: string): void {
  if (signal.aborted) throw cancelled(signal, verifierId);
}

export function cancelled(signal: AbortSignal, verifierId: string, details: Record<string, unknown> = {}): YokeError {
  return new YokeError("CANCELLED", `verifier "${verifierId}" was cancelled`, { cause: signal.reason, details: { verifierId, ...details } });
}

/** A YokeError as it is; anything else thrown by a check as VERIFIER_FAILED. */
export function asYokeError(error: unknown, verifierId: string): YokeError {
  if (YokeError.isInstance(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new YokeError("VERIFIER_FAILED", `verifier "${verifierId}" threw: ${message}`, { cause: error, details: { verifierId } });
}
