import type { ArgumentProvenance, DataClassification, JsonValue, ProvenanceOrigin, ProvenanceSource, RunState, ToolPolicyFacts } from "@yoke/protocol";

/*
 * Argument provenance: for each string value of a proposed call's arguments, the context
 * items it appears in verbatim, each with its trust label. Pure: the same arguments and
 * context give the same provenance, so a resume traces a call as the first process did.
 */

/** One structured-output value a tool declared trusted (`trustedOutputFields`), with its JSON pointer. */
export interface TrustedField {
  readonly field: string;
  readonly value: string;
}

/**
 * One item of a run's context, as provenance searches it. `text` is everything the model was
 * shown of it (for a tool result: its text and every string of its structured output, all
 * untrusted); `trustedFields` are the values at the tool's `trustedOutputFields`, which count
 * as trusted sources on their own, for an argument value equal to the whole field (after
 * normalisation), never for one found inside it.
 */
export interface ContextItem {
  readonly itemId: string;
  readonly label: string;
  readonly trusted: boolean;
  readonly toolName?: string;
  readonly text: string;
  readonly trustedFields?: readonly TrustedField[];
  /**
   * A tool output only: true when everything it showed the model is the tool's declared system
   * of record (`everyValueTrusted`): it cannot have steered the model, though its values are
   * still traced as fields. Absent (false) for any other result.
   */
  readonly everyValueTrusted?: boolean;
  /** A tool output only: its tool's declared `dataClassification`, when that is not `internal` (what everything else is). */
  readonly classification?: DataClassification;
  /** The index in `RunState.messages` of the message the item came from; absent for the task, system prompt and constraints. */
  readonly message?: number;
}

/** Roles given to entities found inside longer argument strings (and to whole values that are one). */
export type EntityRole = "email" | "iban" | "url" | "channel";

const ENTITY_PATTERNS: readonly (readonly [EntityRole, RegExp])[] = [
  ["email", /[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}/gi],
  ["iban", /\b[A-Z]{2}\d{2}[A-Z0-9]{10,30}\b/g],
  [
    "url",
    /\b(?:[a-z][a-z0-9+.-]*:\/\/|www\.)[^\s<>"'`)\]]+|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|org|net|io|dev|ai|co|uk|de|ch|fr|edu|gov|info|app)\b(?:\/[^\s<>"'`)\]]*)?/gi,
  ],
  ["channel", /(?<![\w#])#[a-z0-9][a-z0-9_-]*/gi],
];

/** Normalised for comparison: Unicode NFKC, lower case, runs of whitespace as one space, trimmed. */
export function normalize(text: string): string {
  return text.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();
}

/**
 * The entities (e-mail addresses, IBANs, URLs and channel names) found in `text`, in order of
 * appearance, each once; a URL's trailing punctuation is dropped.
 *
 * @example
 * ```ts
 * entitiesIn("Send it to US133000000121212121212 and post www.example.com in #general");
 * // [{ role: "iban", value: "US133000000121212121212" }, { role: "url", value: "www.example.com" }, { role: "channel", value: "#general" }]
 * ```
 */
export function entitiesIn(text: string): { readonly role: EntityRole; readonly value: string }[] {
  const found: { role: EntityRole; value: string; at: number; end: number }[] = [];
  for (const [role, pattern] of ENTITY_PATTERNS) {
    for (const match of text.matchAll(pattern)) {
      const value = role === "url" ? match[0].replace(/[.,;:!?]+$/, "") : match[0];
      const at = match.index;
      const end = at + value.length;
      // A domain inside an e-mail address is part of the address, not a URL of its own.
      if (found.some((other) => at < other.end && end > other.at)) continue;
      found.push({ role, value, at, end });
    }
  }
  const seen = new Set<string>();
  return found
    .sort((a, b) => a.at - b.at)
    .filter((entity) => {
      const key = `${entity.role}\u0000${entity.value}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .map(({ role, value }) => ({ role, value }));
}

/** Whether `needle` (normalised) occurs in `haystack` (normalised) with no letter or digit glued to either end. */
export function occursIn(needle: string, haystack: string): boolean {
  if (needle === "") return false;
  let from = 0;
  for (;;) {
    const at = haystack.indexOf(needle, from);
    if (at < 0) return false;
    const before = at === 0 ? "" : haystack[at - 1]!;
    const after = haystack[at + needle.length] ?? "";
    const openStart = !isWordChar(needle[0]!) || !isWordChar(before);
    const openEnd = !isWordChar(needle[needle.length - 1]!) || !isWordChar(after);
    if (openStart && openEnd) return true;
    from = at + 1;
  }
}

function isWordChar(char: string): boolean {
  return char !== "" && /[\p{L}\p{N}_]/u.test(char);
}

interface PreparedItem {
  readonly item: ContextItem;
  readonly text: string;
  readonly fields: readonly { readonly field: string; readonly value: string }[];
}

/**
 * Traces a call's arguments through the context: one entry per string value (its JSON
 * pointer, the role the tool's policy facts give it, the value, the origin and every source),
 * then one entry per entity (e-mail, IBAN, URL, channel) found inside a longer string value,
 * with the entity's kind as role (not inside a destination argument whose whole value is
 * trusted: it names that destination, and nothing inside it is used). Values under a destination pointer of `facts` take that
 * destination's role (a number there is traced as its decimal text); a whole value that is an
 * entity and has no declared role takes the entity's kind.
 *
 * Origin: `trusted` when any source is trusted; `untrusted_only` when only untrusted content
 * other than the model's own text holds it; `unsourced` when nothing but the model (or
 * nothing at all) does.
 *
 * @example
 * ```ts
 * traceArguments({ recipient: "US13…" }, { destinations: [{ pointer: "/recipient", role: "recipient" }] }, items);
 * // [{ path: "/recipient", role: "recipient", value: "US13…", origin: "untrusted_only", sources: [{ itemId: "call_1", label: "tool_output", trusted: false, toolName: "read_file" }] }]
 * ```
 */
export function traceArguments(args: JsonValue, facts: Pick<ToolPolicyFacts, "destinations"> | undefined, items: readonly ContextItem[]): ArgumentProvenance[] {
  const prepared = prepare(items);
  const destinations = (facts?.destinations ?? []).map((destination) => ({ ...destination, segments: pointerSegments(destination.pointer) }));
  const entries: ArgumentProvenance[] = [];
  const embedded: ArgumentProvenance[] = [];
  for (const leaf of leavesOf(args, [])) {
    const destination = destinations
      .filter((candidate) => isPrefix(candidate.segments, leaf.segments))
      .sort((a, b) => b.segments.length - a.segments.length)[0];
    if (typeof leaf.value !== "string" && (destination === undefined || typeof leaf.value !== "number")) continue;
    const value = String(leaf.value);
    const path = pointerOf(leaf.segments);
    const entities = entitiesIn(value);
    const whole = entities.length === 1 && entities[0]!.value === value.trim() ? entities[0]!.role : undefined;
    const role = destination?.role ?? whole;
    const entry = traceOne(path, role, value, prepared);
    entries.push(entry);
    if (whole !== undefined) continue;
    // A destination the system lists by exactly this name (a channel called "External_… www.x.com")
    // names that destination; the text inside it is not a URL or address the call uses.
    if (destination !== undefined && entry.origin === "trusted") continue;
    for (const entity of entities) embedded.push(traceOne(path, entity.role, entity.value, prepared));
  }
  return [...entries, ...embedded];
}

/** Normalised texts of an item list, computed once per list (a batch's calls share one). */
const preparedLists = new WeakMap<readonly ContextItem[], readonly PreparedItem[]>();

function prepare(items: readonly ContextItem[]): readonly PreparedItem[] {
  let prepared = preparedLists.get(items);
  if (prepared === undefined) {
    prepared = items.map((item) => ({
      item,
      text: normalize(item.text),
      fields: (item.trustedFields ?? []).map((field) => ({ field: field.field, value: normalize(field.value) })),
    }));
    preparedLists.set(items, prepared);
  }
  return prepared;
}

function traceOne(path: string, role: string | undefined, value: string, items: readonly PreparedItem[]): ArgumentProvenance {
  const needle = normalize(value);
  const sources: ProvenanceSource[] = [];
  for (const { item, text, fields } of items) {
    const base = {
      itemId: item.itemId,
      label: item.label,
      ...(item.toolName === undefined ? {} : { toolName: item.toolName }),
      ...(item.classification === undefined ? {} : { classification: item.classification }),
    };
    // A trusted field vouches for its whole value only: a value found inside a longer one (an
    // attacker's URL inside a channel name the system lists) is not the system's record.
    for (const field of fields) if (needle === field.value) sources.push({ ...base, trusted: true, field: field.field });
    if (occursIn(needle, text)) sources.push({ ...base, trusted: item.trusted });
  }
  return { path, ...(role === undefined ? {} : { role }), value, origin: originOf(sources), sources };
}

function originOf(sources: readonly ProvenanceSource[]): ProvenanceOrigin {
  if (sources.some((source) => source.trusted)) return "trusted";
  if (sources.some((source) => source.label !== "model")) return "untrusted_only";
  return "unsourced";
}

interface Leaf {
  readonly segments: readonly string[];
  readonly value: JsonValue;
}

function* leavesOf(value: JsonValue, segments: readonly string[]): Generator<Leaf> {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) yield* leavesOf(item, [...segments, String(index)]);
  } else if (value !== null && typeof value === "object") {
    for (const key of Object.keys(value).sort()) yield* leavesOf(value[key] as JsonValue, [...segments, key]);
  } else {
    yield { segments, value };
  }
}

/** The segments of a JSON pointer (`~1` is `/`, `~0` is `~`); "" is the whole document. */
export function pointerSegments(pointer: string): string[] {
  if (pointer === "") return [];
  return pointer
    .replace(/^\//, "")
    .split("/")
    .map((segment) => segment.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function pointerOf(segments: readonly string[]): string {
  return segments.map((segment) => `/${segment.replace(/~/g, "~0").replace(/\//g, "~1")}`).join("");
}

function isPrefix(prefix: readonly string[], segments: readonly string[]): boolean {
  return prefix.length <= segments.length && prefix.every((segment, index) => segment === segments[index]);
}

/** Whether a pattern's segments (`*` matching any one segment) cover a leaf: the pattern names it or an ancestor. */
function patternCovers(pattern: readonly string[], segments: readonly string[]): boolean {
  return pattern.length <= segments.length && pattern.every((segment, index) => segment === "*" || segment === segments[index]);
}

/**
 * The string values of a structured output at the JSON-pointer patterns a tool declared
 * trusted (`trustedOutputFields`; a `*` segment matches any key or index, and a pattern naming
 * an object or array covers everything inside it), each with its concrete pointer.
 *
 * @example
 * ```ts
 * trustedFieldsOf({ transactions: [{ recipient: "GB29…", subject: "hi" }] }, ["/transactions/*\/recipient"]);
 * // [{ field: "/transactions/0/recipient", value: "GB29…" }]
 * ```
 */
export function trustedFieldsOf(output: JsonValue | undefined, patterns: readonly string[] | undefined): TrustedField[] {
  if (output === undefined || patterns === undefined || patterns.length === 0) return [];
  const parsed = patterns.map(pointerSegments);
  const fields: TrustedField[] = [];
  for (const leaf of leavesOf(output, [])) {
    if (typeof leaf.value !== "string" && typeof leaf.value !== "number") continue;
    if (parsed.some((pattern) => patternCovers(pattern, leaf.segments))) fields.push({ field: pointerOf(leaf.segments), value: String(leaf.value) });
  }
  return fields;
}

/**
 * Whether a tool result shows the model nothing but its tool's declared system of record: every
 * string of the structured output is at a `trustedOutputFields` pattern, every object key on the
 * way to a value lies along one (a key a pattern names, or one its `*` stands for: data keys
 * outside them are text an attacker may choose), and the text parts hold nothing beyond those
 * values, those keys, numbers and punctuation (the tool's rendering of the same output). A
 * result without structured output is wholly trusted only when it shows no text at all.
 *
 * @example
 * ```ts
 * everyValueTrusted({ balance: 1810 }, ["balance: 1810.0"], ["/balance"]); // true
 * everyValueTrusted({ subject: "hi" }, ["subject: hi"], ["/amount"]); // false
 * ```
 */
export function everyValueTrusted(output: JsonValue | undefined, texts: readonly string[], patterns: readonly string[] | undefined): boolean {
  if (output === undefined) return texts.every((text) => text.trim() === "");
  if (patterns === undefined || patterns.length === 0) return false;
  const parsed = patterns.map(pointerSegments);
  const words = new Set<string>();
  for (const leaf of leavesOf(output, [])) {
    for (let depth = 0; depth < leaf.segments.length; depth++) {
      const prefix = leaf.segments.slice(0, depth + 1);
      if (isIndexOfArray(output, prefix)) continue;
      if (!parsed.some((pattern) => alongPattern(pattern, prefix))) return false;
      words.add(prefix[depth]!);
    }
    if (typeof leaf.value === "string") {
      if (!parsed.some((pattern) => patternCovers(pattern, leaf.segments))) return false;
      words.add(leaf.value);
    }
  }
  const removable = [...words]
    .map(normalize)
    .filter((word) => word !== "")
    .sort((a, b) => b.length - a.length);
  return texts.every((text) => {
    let residue = normalize(text);
    for (const word of removable) residue = residue.split(word).join(" ");
    return /^[\s\p{P}\p{S}\p{N}]*$/u.test(residue.replace(/\b(?:true|false|null|none)\b/g, " "));
  });
}

/** Whether the last segment of `prefix` indexes an array of `value` (an index is structure, not text). */
function isIndexOfArray(value: JsonValue, prefix: readonly string[]): boolean {
  let node: JsonValue | undefined = value;
  for (const segment of prefix.slice(0, -1)) {
    if (Array.isArray(node)) node = node[Number(segment)];
    else if (node !== null && typeof node === "object") node = node[segment];
    else return false;
  }
  return Array.isArray(node);
}

/** Whether `prefix` (a path to an object key) is on the way to what `pattern` names, or inside it. */
function alongPattern(pattern: readonly string[], prefix: readonly string[]): boolean {
  const shared = Math.min(pattern.length, prefix.length);
  for (let index = 0; index < shared; index++) if (pattern[index] !== "*" && pattern[index] !== prefix[index]) return false;
  return true;
}

/** Every string (and number) of a JSON value, space-separated: what a structured output shows. */
function stringsOf(value: JsonValue | undefined): string {
  if (value === undefined) return "";
  return [...leavesOf(value, [])]
    .filter((leaf) => typeof leaf.value === "string" || typeof leaf.value === "number")
    .map((leaf) => String(leaf.value))
    .join("\n");
}

/**
 * The context items of a run, with their trust labels: the task (`user`, trusted), the system
 * prompt (`system`, trusted), operator constraints (`operator`, trusted), later user input
 * (`operator`, trusted; the runtime's own notes, which start with `[runtime]`, are `runtime`,
 * untrusted), the model's text (`model`, untrusted), and each tool result (`tool_output`,
 * untrusted, with the values at its tool's `trustedOutputFields` as trusted fields).
 * `trustedOutputFieldsOf` gives a tool's declared patterns by name; `classificationOf` its
 * declared `dataClassification` (a tool output's sources carry it when it is not `internal`).
 *
 * @example
 * ```ts
 * const items = contextItemsOf(await harness.getState(runId), (name) => tools.get(name)?.trustedOutputFields);
 * traceArguments({ to: "US13…" }, { destinations: [{ pointer: "/to", role: "recipient" }] }, items)[0]?.origin; // "untrusted_only"
 * ```
 */
export function contextItemsOf(
  state: Pick<RunState, "task" | "systemPrompt" | "messages" | "messageSeqs">,
  trustedOutputFieldsOf: (toolName: string) => readonly string[] | undefined,
  constraints: readonly { readonly id: string; readonly text: string }[] = [],
  classificationOf: (toolName: string) => DataClassification | undefined = () => undefined,
): ContextItem[] {
  const items: ContextItem[] = [{ itemId: "task", label: "user", trusted: true, text: state.task }];
  if (state.systemPrompt !== undefined) items.push({ itemId: "system", label: "system", trusted: true, text: state.systemPrompt });
  for (const constraint of constraints) items.push({ itemId: constraint.id, label: "operator", trusted: true, text: constraint.text });
  for (const [index, message] of state.messages.entries()) {
    if (index === 0) continue;
    const seq = state.messageSeqs[index];
    if (message.role === "user") {
      const text = message.content.map((part) => (part.type === "text" ? part.text : `[${part.type} ${part.mediaType}]`)).join("\n");
      const note = text.startsWith("[runtime]");
      items.push({ itemId: `input:${seq}`, label: note ? "runtime" : "operator", trusted: !note, text, message: index });
    } else if (message.role === "assistant") {
      const text = message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
      if (text !== "") items.push({ itemId: `response:${seq}`, label: "model", trusted: false, text, message: index });
    } else if (message.role === "tool") {
      for (const part of message.content) {
        const { result } = part;
        const text = [...result.content.map((content) => content.text), stringsOf(result.output), result.error?.message ?? ""].join("\n");
        const patterns = trustedOutputFieldsOf(part.toolName);
        const fields = result.status === "ok" ? trustedFieldsOf(result.output, patterns) : [];
        const shown = result.content.map((content) => content.text);
        const wholly = result.status === "ok" && result.error === undefined && everyValueTrusted(result.output, shown, patterns);
        const classification = classificationOf(part.toolName);
        items.push({
          itemId: part.toolCallId,
          label: "tool_output",
          trusted: false,
          toolName: part.toolName,
          text,
          ...(fields.length === 0 ? {} : { trustedFields: fields }),
          ...(wholly ? { everyValueTrusted: true } : {}),
          ...(classification === undefined || classification === "internal" ? {} : { classification }),
          message: index,
        });
      }
    }
  }
  return items;
}
