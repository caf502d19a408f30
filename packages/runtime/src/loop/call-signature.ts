import { hash } from "node:crypto";
import { canonicalJson, type JsonValue } from "@yoke/protocol";

/**
 * What a tool declares about its own arguments for loop detection: the dotted argument paths
 * whose letter case does not matter (`ToolLoopPolicy.caseInsensitive`).
 */
export interface SignatureRules {
  readonly caseInsensitive?: readonly string[];
}

/** Runs of whitespace (Unicode included) are one space; leading and trailing ones none. */
const WHITESPACE = /\s+/gu;
/** Invisible format characters (zero-width space and joiners, byte-order mark): nothing a reader sees. */
const INVISIBLE = /\p{Cf}/gu;
/**
 * What changes between two tellings of one failure without changing the failure: UUIDs, long
 * hex ids (request ids, digests: 8+ hex digits with a digit in them), then any number (a
 * counter, a time, a duration). Applied to failing results only: in a result that succeeded, a
 * number that moves is usually progress (`5 jobs left`, `4 jobs left`), not a loop.
 */
const VOLATILE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\b(?=[0-9a-f]*\d)[0-9a-f]{8,}\b|\d+(?:[.,:]\d+)*/giu;

/**
 * A call's signature: SHA-256 (64 hex digits) of its tool revision, its arguments and its
 * result, each as loop detection compares them. Two calls with one signature asked the same
 * thing and were told the same thing, up to cosmetics: object key order, whitespace in
 * strings (runs collapsed, ends trimmed), invisible format characters and Unicode
 * composition (NFC), the case of the argument fields `rules` declares
 * case-insensitive, the result's timing and, in a failing result (`status: "error"`),
 * volatile numbers and ids. Costs one pass over the call's own arguments and result: nothing
 * of the run's history.
 *
 * @example
 * ```ts
 * callSignature("sha256:…", { path: "a.txt " }, { content: [{ type: "text", text: "hi" }] }) ===
 *   callSignature("sha256:…", { path: "a.txt" }, { content: [{ type: "text", text: "hi" }] }); // true
 * ```
 */
export function callSignature(toolRevision: string, input: unknown, result: unknown, rules: SignatureRules = {}): string {
  // When it ran is not what it said.
  const { timing: _timing, ...said } = (result ?? {}) as { timing?: unknown; status?: unknown };
  const failed = said.status === "error";
  const caseless = new Set(rules.caseInsensitive ?? []);
  const told = normalize(said as JsonValue, undefined, new Set(), failed);
  const asked = normalize(input as JsonValue, "", caseless, false);
  const resultDigest = hash("sha256", canonicalJson(told), "hex");
  return hash("sha256", canonicalJson({ toolRevision, input: asked, result: resultDigest }), "hex");
}

/**
 * `value` as loop detection compares it. `path`: the dotted path of `value` in the arguments
 * (`undefined` outside them), matched against `caseless`. Key order needs nothing here:
 * `canonicalJson` sorts keys.
 */
function normalize(value: JsonValue, path: string | undefined, caseless: ReadonlySet<string>, volatile: boolean): JsonValue {
  if (typeof value === "string") {
    let text = value.normalize("NFC").replace(INVISIBLE, "").replace(WHITESPACE, " ").trim();
    if (volatile) text = text.replace(VOLATILE, "#");
    return path !== undefined && caseless.has(path) ? text.toLowerCase() : text;
  }
  if (Array.isArray(value)) return value.map((item) => normalize(item, path, caseless, volatile));
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, JsonValue> = {};
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined) continue;
    out[key] = normalize(item, path === undefined ? undefined : path === "" ? key : `${path}.${key}`, caseless, volatile);
  }
  return out;
}
