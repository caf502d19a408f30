/**
 * The most bytes one viewer API response carries (its JSON body). Pages end before it; an
 * event too large for a page alone is sent cut, with its full text available in slices.
 */
export const MAX_RESPONSE_BYTES = 1024 * 1024;

/** UTF-8 bytes of `value` as JSON. */
export function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? "", "utf8");
}

/** `value` with every string longer than `max` UTF-16 units cut (its end replaced by a note of what was cut). */
function clipStrings(value: unknown, max: number): unknown {
  if (typeof value === "string") {
    if (value.length <= max) return value;
    // Never split a surrogate pair: the cut string stays well-formed.
    const end = max > 0 && /[\uD800-\uDBFF]/.test(value.charAt(max - 1)) ? max - 1 : max;
    return `${value.slice(0, end)}… [cut: ${value.length - end} more characters]`;
  }
  if (Array.isArray(value)) return value.map((entry) => clipStrings(entry, max));
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, clipStrings(entry, max)]));
  return value;
}

/** `value` with every array longer than `max` items cut to its first `max`. */
function clipArrays(value: unknown, max: number): unknown {
  if (Array.isArray(value)) return value.slice(0, max).map((entry) => clipArrays(entry, max));
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, clipArrays(entry, max)]));
  return value;
}

const STRING_LIMITS = [65_536, 4_096, 256, 32] as const;
const ARRAY_LIMITS = [1_000, 100, 10, 1, 0] as const;

/**
 * `value` if its JSON fits `budget` bytes; otherwise a copy cut until it does: long strings
 * first (each keeps its start and says how much was cut), then long arrays (their first items
 * kept), and, should nothing else fit, `null`. `cut` says whether anything was.
 */
export function fitJson(value: unknown, budget: number): { readonly value: unknown; readonly cut: boolean } {
  if (jsonBytes(value) <= budget) return { value, cut: false };
  let clipped: unknown = value;
  for (const max of STRING_LIMITS) {
    clipped = clipStrings(value, max);
    if (jsonBytes(clipped) <= budget) return { value: clipped, cut: true };
  }
  for (const max of ARRAY_LIMITS) {
    const smaller = clipArrays(clipped, max);
    if (jsonBytes(smaller) <= budget) return { value: smaller, cut: true };
  }
  return { value: null, cut: true };
}

/**
 * The body of an API response, within {@link MAX_RESPONSE_BYTES}: `body` itself, or cut by
 * {@link fitJson} and marked `cut: true` (an object body) so the page can say so. The one check
 * every JSON answer of the viewer passes, whatever produced it.
 */
export function boundedBody(body: unknown, budget = MAX_RESPONSE_BYTES): string {
  const text = JSON.stringify(body);
  if (Buffer.byteLength(text, "utf8") <= budget) return text;
  const isObject = body !== null && typeof body === "object" && !Array.isArray(body);
  // Room for the `"cut":true` member added below.
  const { value } = fitJson(body, budget - 16);
  return JSON.stringify(isObject && value !== null ? { ...(value as object), cut: true } : value);
}

/** The largest slice of an event's text one response holds: a slice's JSON escapes can take up to 6 bytes per byte. */
export const MAX_SLICE_BYTES = Math.floor(MAX_RESPONSE_BYTES / 8);

/**
 * Bytes `offset` up to `offset + MAX_SLICE_BYTES` of `bytes` as text, ending on a UTF-8
 * character boundary (so a character is never split between two slices), and where the next
 * slice starts (null after the last).
 */
export function sliceText(bytes: Buffer, offset: number): { readonly text: string; readonly next: number | null } {
  let end = Math.min(bytes.length, offset + MAX_SLICE_BYTES);
  // Back off UTF-8 continuation bytes (10xxxxxx): the next slice begins with the whole character.
  while (end < bytes.length && end > offset && (bytes[end]! & 0xc0) === 0x80) end--;
  return { text: bytes.subarray(offset, end).toString("utf8"), next: end < bytes.length ? end : null };
}
