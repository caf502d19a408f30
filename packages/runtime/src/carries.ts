import type { ArgumentProvenance, Carries, DataClassification, ToolPolicyFacts } from "@yoke/protocol";
import { type ContextItem, normalize, occursIn, pointerSegments } from "./provenance.js";

/*
 * What a proposed call carries: its declared payloads, summarised from the provenance the
 * tracer already computed for every argument value (no second walk over the arguments), plus
 * the values of classified tool outputs found inside a payload's text. Pure: the same
 * provenance, facts and items give the same answer, so a resume decides as the first process did.
 */

const RANK: Readonly<Record<DataClassification, number>> = { public: 0, internal: 1, confidential: 2, restricted: 3 };
const BY_RANK: readonly DataClassification[] = ["public", "internal", "confidential", "restricted"];

/** Shorter values of a classified output are not searched for inside payloads: a word that short is not data. */
const FRAGMENT_MIN_LENGTH = 6;

/**
 * The tuple's `carries` for a call whose arguments were traced into `provenance`, or undefined
 * when the tool declares no `payloads`. A provenance entry is a payload value when its path is at
 * or under a payload pointer (so an address found inside a payload's text counts too).
 * - A value a principal of the run gave (a trusted source that is not a tool's record field) is
 *   theirs to send and adds nothing.
 * - Every other value adds each of its sources: the highest classification (a source without
 *   one is `internal`), whether any is a tool output, whether the value is held only by
 *   third-party content.
 * - A payload text that contains a value of a tool output classified above `internal` (one line
 *   of it, or one string of its structured output, of at least six characters, that no principal
 *   gave) carries that classification from that tool output: personal data pasted into a longer
 *   message still leaves with it.
 * With nothing added, the classification is `internal`.
 *
 * @example
 * ```ts
 * carriesOf(traceArguments(input, facts, items), { payloads: ["/body"], destinations: [{ pointer: "/to", role: "email" }] }, items);
 * // { classification: "confidential", fromToolOutput: true, fromUntrusted: false, outward: true }
 * ```
 */
export function carriesOf(
  provenance: readonly ArgumentProvenance[],
  facts: Pick<ToolPolicyFacts, "payloads" | "outward">,
  items: readonly ContextItem[] = [],
): Carries | undefined {
  const payloads = facts.payloads;
  if (payloads === undefined || payloads.length === 0) return undefined;
  const pointers = payloads.map(pointerSegments);
  let rank = -1;
  let fromToolOutput = false;
  let fromUntrusted = false;
  const searched = new Set<string>();
  for (const entry of provenance) {
    if (!underAny(pointers, pointerSegments(entry.path))) continue;
    if (!searched.has(entry.value)) {
      searched.add(entry.value);
      const inside = classifiedInside(entry.value, items);
      if (inside > rank) rank = inside;
      if (inside >= 0) fromToolOutput = true;
    }
    if (entry.sources.some((source) => source.trusted && source.field === undefined)) continue;
    if (entry.origin === "untrusted_only") fromUntrusted = true;
    for (const source of entry.sources) {
      rank = Math.max(rank, RANK[source.classification ?? "internal"] ?? RANK.restricted);
      if (source.label === "tool_output") fromToolOutput = true;
    }
  }
  return { classification: BY_RANK[rank] ?? "internal", fromToolOutput, fromUntrusted, outward: facts.outward ?? true };
}

function underAny(pointers: readonly (readonly string[])[], segments: readonly string[]): boolean {
  return pointers.some((pointer) => pointer.length <= segments.length && pointer.every((segment, index) => segment === segments[index]));
}

interface Fragments {
  /** Per classified tool output: its rank and the normalised values searched for inside payloads. */
  readonly classified: readonly { readonly rank: number; readonly values: readonly string[] }[];
}

/** The searchable values of an item list, computed once per list (a batch's calls share one). */
const fragmentLists = new WeakMap<readonly ContextItem[], Fragments>();

function fragmentsOf(items: readonly ContextItem[]): Fragments {
  let fragments = fragmentLists.get(items);
  if (fragments !== undefined) return fragments;
  const principals = items.filter((item) => item.trusted && item.toolName === undefined).map((item) => normalize(item.text));
  const classified = items.flatMap((item) => {
    const rank = RANK[item.classification ?? "internal"] ?? RANK.restricted;
    if (item.label !== "tool_output" || rank <= RANK.internal) return [];
    const values = [...new Set(item.text.split("\n").map(normalize))].filter(
      (value) => value.length >= FRAGMENT_MIN_LENGTH && !principals.some((text) => occursIn(value, text)),
    );
    return values.length === 0 ? [] : [{ rank, values }];
  });
  fragments = { classified };
  fragmentLists.set(items, fragments);
  return fragments;
}

/** The highest rank of a classified tool output one of whose values `value` contains; -1 when none. */
function classifiedInside(value: string, items: readonly ContextItem[]): number {
  const { classified } = fragmentsOf(items);
  if (classified.length === 0) return -1;
  const text = normalize(value);
  let found = -1;
  for (const { rank, values } of classified) {
    if (rank > found && values.some((fragment) => occursIn(fragment, text))) found = rank;
  }
  return found;
}
