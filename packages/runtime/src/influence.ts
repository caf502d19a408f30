import { INFLUENCE_LISTED_MAX, type Influence } from "@yoke/protocol";
import type { ContextItem } from "./provenance.js";

/*
 * Control-flow integrity of a proposed call, propagated like an information-flow label: the
 * lowest integrity of anything in the context the proposal answered. Pure: the same items give
 * the same influence, so a resume decides a call as the first process did.
 */

/**
 * Whether an item may have steered what the model decided to do:
 * - an item whose label is a principal of the run (task, system prompt, operator input) does not;
 * - a tool output does not when every string it showed sits at a field its tool declared a
 *   system of record (`ContextItem.everyValueTrusted`): one string outside them is enough to lower;
 * - the model's own text does not lower on its own: it carries the integrity of the request it
 *   answered, and every item of that request is in the same context, earlier;
 * - anything else (a tool output with free text, an error, a runtime note quoting a verifier,
 *   retrieved content) does.
 */
export function lowersIntegrity(item: ContextItem): boolean {
  if (item.label === "model") return false;
  if (item.trusted) return false;
  return item.everyValueTrusted !== true;
}

/**
 * The influence on a call proposed by a model that saw `items` (in context order): `untrusted`
 * when any item lowers integrity, with the first `INFLUENCE_LISTED_MAX` of them listed and the
 * rest counted in `more`; `trusted` otherwise. A trusted item after an untrusted one does not
 * raise it: the untrusted text is still there for the model to read.
 *
 * @example
 * ```ts
 * influenceOf([{ itemId: "task", label: "user", trusted: true, text: "pay the bill" }]);
 * // { integrity: "trusted", loweredBy: [] }
 * influenceOf([task, { itemId: "call_1", label: "tool_output", trusted: false, toolName: "read_file", text: "…" }]);
 * // { integrity: "untrusted", loweredBy: [{ itemId: "call_1", label: "tool_output", toolName: "read_file" }] }
 * ```
 */
export function influenceOf(items: readonly ContextItem[]): Influence {
  const lowering = items.filter(lowersIntegrity);
  if (lowering.length === 0) return { integrity: "trusted", loweredBy: [] };
  const listed = lowering.slice(0, INFLUENCE_LISTED_MAX).map((item) => ({
    itemId: item.itemId,
    label: item.label,
    ...(item.toolName === undefined ? {} : { toolName: item.toolName }),
  }));
  const more = lowering.length - listed.length;
  return { integrity: "untrusted", loweredBy: listed, ...(more > 0 ? { more } : {}) };
}

/**
 * The items of the context a call was proposed in: everything before the assistant message that
 * holds the call (`ContextItem.message` below its index), the model's text of that message
 * included. Without such a message (a call the run does not hold), every item: a later result
 * can only lower integrity, never raise it, so the whole run is the conservative answer.
 */
export function itemsOfProposal(items: readonly ContextItem[], proposedAt: number | undefined): readonly ContextItem[] {
  if (proposedAt === undefined) return items;
  return items.filter((item) => item.message === undefined || item.message <= proposedAt);
}
