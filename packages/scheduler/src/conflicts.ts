import type { SideEffectClass, ToolAccess } from "@yoke/protocol";

/** Every resource: what a call without a declared access set reads (`none`) or writes (the rest). */
export const ALL_RESOURCES = "*";

/** The access set a call without `access` gets: `none` reads everything, any other class writes everything. */
export function defaultAccess(sideEffect: SideEffectClass): ToolAccess {
  return sideEffect === "none" ? { reads: [ALL_RESOURCES], writes: [] } : { reads: [], writes: [ALL_RESOURCES] };
}

function overlaps(a: readonly string[], b: readonly string[]): boolean {
  if (a.length === 0 || b.length === 0) return false;
  if (a.includes(ALL_RESOURCES) || b.includes(ALL_RESOURCES)) return true;
  return a.some((resource) => b.includes(resource));
}

/**
 * Two calls conflict when one writes a resource the other reads or writes. Two reads never
 * conflict.
 */
export function conflicts(a: ToolAccess, b: ToolAccess): boolean {
  return overlaps(a.writes, b.writes) || overlaps(a.writes, b.reads) || overlaps(a.reads, b.writes);
}

/**
 * For each call, the earlier calls (by proposal order) it must wait for: every earlier call
 * it conflicts with. This is the snapshot rule: a read sees exactly the writes proposed
 * before it and none proposed after it, as if the batch ran one call at a time in proposal
 * order; calls that share no written resource run at the same time.
 *
 * @example
 * ```ts
 * conflictPredecessors([{ reads: ["a"], writes: [] }, { reads: [], writes: ["a"] }, { reads: ["b"], writes: [] }]);
 * // [[], [0], []]: the write waits for the earlier read; the read of b runs alongside both
 * ```
 */
export function conflictPredecessors(accesses: readonly ToolAccess[]): number[][] {
  return accesses.map((access, index) => {
    const before: number[] = [];
    for (let earlier = 0; earlier < index; earlier++) if (conflicts(accesses[earlier]!, access)) before.push(earlier);
    return before;
  });
}
