import type { Carries } from "@yoke/protocol";

/**
 * One line: what a decided call carried: the highest classification of its payload values,
 * where they came from, and whether they left the account.
 *
 * @example
 * ```ts
 * carriesLine({ classification: "confidential", fromToolOutput: true, fromUntrusted: false, outward: true });
 * // "carries: confidential data from tool outputs, out of the account"
 * ```
 */
export function carriesLine(carries: Carries): string {
  const from = [carries.fromToolOutput ? "from tool outputs" : "from no tool output", ...(carries.fromUntrusted ? ["some only in third-party content"] : [])];
  return `carries: ${carries.classification} data ${from.join(", ")}, ${carries.outward ? "out of the account" : "kept in the account"}`;
}
