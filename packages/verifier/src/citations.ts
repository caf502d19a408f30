/**
 * Evidence citations in an answer's text:
 * - `[action:<actionId>]` — an action of the run, by its id (the idempotency key);
 * - `[call:<toolCallId>]` — an action of the run, by the id of the tool call that proposed it:
 *   the id the model itself saw in the tool result, so a model can cite what it did;
 * - `[artifact:sha256:<64 hex>]` — content the journal holds, by the SHA-256 of its bytes.
 *
 * An id runs to the closing bracket and holds no whitespace. A citation of another kind, or an
 * artifact whose digest is not 64 hex characters, is `malformed`.
 */
export type Citation =
  | { readonly kind: "action"; readonly id: string; readonly text: string }
  | { readonly kind: "call"; readonly id: string; readonly text: string }
  | { readonly kind: "artifact"; readonly id: string; readonly text: string }
  | { readonly kind: "malformed"; readonly id: string; readonly text: string };

const CITATION = /\[(action|call|artifact):([^\]\s]+)\]/g;
const DIGEST = /^sha256:([0-9a-fA-F]{64})$/;

/**
 * The citations of `text`, each once, in the order they first appear. An artifact's id is its
 * hex digest, lowercased.
 *
 * @example
 * ```ts
 * parseCitations("Paid the invoice [action:action_7] (receipt in [artifact:sha256:" + "ab".repeat(32) + "]).");
 * // [{ kind: "action", id: "action_7", text: "[action:action_7]" }, { kind: "artifact", id: "abab…", text: "[artifact:sha256:abab…]" }]
 * ```
 */
export function parseCitations(text: string): Citation[] {
  const seen = new Set<string>();
  const citations: Citation[] = [];
  for (const match of text.matchAll(CITATION)) {
    const [whole, kind, value] = match as unknown as [string, "action" | "call" | "artifact", string];
    let citation: Citation;
    if (kind === "action" || kind === "call") citation = { kind, id: value, text: whole };
    else {
      const digest = DIGEST.exec(value)?.[1];
      citation = digest === undefined ? { kind: "malformed", id: value, text: whole } : { kind, id: digest.toLowerCase(), text: whole };
    }
    const key = `${citation.kind}:${citation.id}`;
    if (seen.has(key)) continue;
    seen.add(key);
    citations.push(citation);
  }
  return citations;
}
