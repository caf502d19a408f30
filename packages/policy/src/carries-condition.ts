import type { DataClassification, PolicyTuple } from "@yoke/protocol";

/**
 * A condition on what a call carries (`tuple.carries`): every member given must hold; a member
 * left out matches any value. A tuple without `carries` (its tool declares no payloads) matches
 * no condition, so an allow rule conditioned on it never grants a call that cannot show what it
 * carries.
 * - `classifications`: the carried classification is one of these;
 * - `fromToolOutput`: whether a payload value was found in a tool output;
 * - `fromUntrusted`: whether a payload value was found only in third-party content;
 * - `outward`: whether what the call carries leaves the account.
 *
 * @example
 * ```ts
 * // Personal or secret data from tool outputs leaving the account:
 * const leaving: CarriesCondition = { classifications: ["confidential", "restricted"], fromToolOutput: true, outward: true };
 * ```
 */
export interface CarriesCondition {
  readonly classifications?: readonly DataClassification[];
  readonly fromToolOutput?: boolean;
  readonly fromUntrusted?: boolean;
  readonly outward?: boolean;
}

/** The test of a `carries` condition on a tuple (fail closed: a malformed or absent `carries` does not match). */
export function carriesTest(condition: CarriesCondition): (tuple: PolicyTuple) => boolean {
  const classifications = condition.classifications === undefined ? undefined : new Set<string>(condition.classifications);
  const flags = (["fromToolOutput", "fromUntrusted", "outward"] as const).filter((flag) => condition[flag] !== undefined);
  return (tuple) => {
    const carries = tuple.carries;
    if (carries === null || typeof carries !== "object") return false;
    if (classifications !== undefined && !classifications.has(carries.classification)) return false;
    return flags.every((flag) => carries[flag] === condition[flag]);
  };
}
