import { YokeError } from "./errors.js";

export interface CanonicalJsonOptions {
  /**
   * Accept only plain JSON values: no `undefined` (in objects or arrays), no `toJSON`
   * objects such as Date, no class instances. What is hashed is then exactly what a reader
   * gets back from `JSON.parse`. Default false (behaves like JSON.stringify).
   */
  readonly strict?: boolean;
}

/** Deeper nesting than this (or a cycle) is rejected. */
export const CANONICAL_JSON_MAX_DEPTH = 256;

/**
 * JSON with object keys sorted by code unit and no insignificant whitespace, so equal values
 * give equal bytes whatever the insertion order. Non-finite numbers, bigints, functions,
 * symbols, cycles and nesting deeper than CANONICAL_JSON_MAX_DEPTH are rejected with
 * EVENT_INVALID. `-0` is written `0`, as JSON does.
 *
 * @example
 * ```ts
 * canonicalJson({ b: 1, a: [true, null] }) // '{"a":[true,null],"b":1}'
 * ```
 */
export function canonicalJson(value: unknown, options: CanonicalJsonOptions = {}): string {
  const strict = options.strict === true;
  try {
    try {
      // Fast path: order keys in a copy (only where they are out of order) and let the native
      // serializer write it. Objects with integer-like keys, which engines always enumerate
      // first, take the slow path.
      return JSON.stringify(normalize(value, 0, strict));
    } catch (error) {
      // The slow writer also names where a bad value is.
      if (error !== INTEGER_KEY && !(error instanceof NotJson)) throw error;
      return write(value, 0, strict);
    }
  } catch (error) {
    if (error instanceof NotJson) {
      const path = `$${error.path.reverse().join("")}`;
      throw new YokeError("EVENT_INVALID", `value is not canonical JSON: contains ${error.what} at ${path}`, { details: { path } });
    }
    throw error;
  }
}

/** Thrown inside the walk; the path is collected on the way out, so the fast path builds none. */
class NotJson {
  readonly path: string[] = [];
  constructor(readonly what: string) {}
}

const INTEGER_KEY = Symbol("integer-like key");
const INTEGER_LIKE = /^(?:0|[1-9][0-9]*)$/;

/**
 * The value with every object's keys in code-unit order; the value itself when already so.
 * Throws NotJson without a path: the caller then reruns the slow writer, which names it.
 */
function normalize(value: unknown, depth: number, strict: boolean): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      if (!Number.isFinite(value)) throw new NotJson("a non-finite number");
      return value;
    case "object":
      if (value === null) return null;
      break;
    case "undefined":
      if (strict) throw new NotJson("undefined");
      return null;
    default:
      throw new NotJson(`a ${typeof value}`);
  }
  if (depth >= CANONICAL_JSON_MAX_DEPTH) throw new NotJson(`nesting deeper than ${CANONICAL_JSON_MAX_DEPTH} (or a cycle)`);
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      const normalized = normalize(item, depth + 1, strict);
      if (normalized !== item && copy === undefined) copy = value.slice(0, index);
      if (copy !== undefined) copy.push(normalized);
    }
    return copy ?? value;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) {
    if (strict) throw new NotJson(`a ${prototype?.constructor?.name ?? "non-plain"} object`);
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") return normalize(toJSON.call(value), depth + 1, strict);
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  // Common case first: keys already in order, no member changed. It allocates nothing but
  // `keys`; the first key out of order, undefined member or changed member hands over to
  // `reorder`, which reuses the members checked so far.
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!;
    if (isIntegerLike(key)) throw INTEGER_KEY;
    if (index > 0 && keys[index - 1]! > key) return reorder(record, keys, index, undefined, depth, strict);
    const member = record[key];
    if (member === undefined) {
      if (strict) throw new NotJson("undefined");
      return reorder(record, keys, index, undefined, depth, strict);
    }
    const normalized = normalize(member, depth + 1, strict);
    if (normalized !== member) return reorder(record, keys, index, normalized, depth, strict);
  }
  return value;
}

/** The first code unit is a digit and the key reads as an array index. */
function isIntegerLike(key: string): boolean {
  const first = key.charCodeAt(0);
  return first >= 48 && first <= 57 && INTEGER_LIKE.test(key);
}

/**
 * A copy of `record` with its keys in code-unit order, undefined members left out and
 * members normalized. Members before `from` were checked and are unchanged; `atFrom`, when
 * given, is the normalized member at `from`.
 */
function reorder(record: Record<string, unknown>, keys: string[], from: number, atFrom: unknown, depth: number, strict: boolean): Record<string, unknown> {
  const members: unknown[] = new Array(keys.length);
  for (let index = 0; index < from; index++) members[index] = record[keys[index]!];
  for (let index = from; index < keys.length; index++) {
    const key = keys[index]!;
    if (index > from && isIntegerLike(key)) throw INTEGER_KEY;
    const member = record[key];
    if (member === undefined) {
      if (strict) throw new NotJson("undefined");
      continue;
    }
    members[index] = index === from && atFrom !== undefined ? atFrom : normalize(member, depth + 1, strict);
  }
  sortTogether(keys, members);
  const copy: Record<string, unknown> = {};
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!;
    if (members[index] === undefined) continue;
    // A "__proto__" member of parsed JSON is an own property; plain assignment would not be.
    if (key === "__proto__") Object.defineProperty(copy, key, { value: members[index], enumerable: true, writable: true, configurable: true });
    else copy[key] = members[index];
  }
  return copy;
}

/**
 * Sorts `keys` by code unit, moving `members` along. Objects are small: an insertion sort in
 * place allocates nothing (Array.prototype.sort copies); large ones go through an index sort.
 */
function sortTogether(keys: string[], members: unknown[]): void {
  const length = keys.length;
  if (length > 32) {
    const order = keys.map((_, index) => index).sort((a, b) => (keys[a]! < keys[b]! ? -1 : 1));
    const sortedKeys = order.map((index) => keys[index]!);
    const sortedMembers = order.map((index) => members[index]);
    for (let index = 0; index < length; index++) {
      keys[index] = sortedKeys[index]!;
      members[index] = sortedMembers[index];
    }
    return;
  }
  for (let index = 1; index < length; index++) {
    const key = keys[index]!;
    const member = members[index];
    let at = index - 1;
    while (at >= 0 && keys[at]! > key) {
      keys[at + 1] = keys[at]!;
      members[at + 1] = members[at];
      at--;
    }
    keys[at + 1] = key;
    members[at + 1] = member;
  }
}

function write(value: unknown, depth: number, strict: boolean): string {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
      if (!Number.isFinite(value)) throw new NotJson("a non-finite number");
      return JSON.stringify(value);
    case "boolean":
      return value ? "true" : "false";
    case "object":
      if (value === null) return "null";
      break;
    case "undefined":
      if (strict) throw new NotJson("undefined");
      return "null";
    default:
      throw new NotJson(`a ${typeof value}`);
  }
  if (depth >= CANONICAL_JSON_MAX_DEPTH) throw new NotJson(`nesting deeper than ${CANONICAL_JSON_MAX_DEPTH} (or a cycle)`);
  if (Array.isArray(value)) {
    let out = "[";
    for (let index = 0; index < value.length; index++) {
      if (index > 0) out += ",";
      try {
        out += write(value[index], depth + 1, strict);
      } catch (error) {
        if (error instanceof NotJson && error.path.length < 32) error.path.push(`[${index}]`);
        throw error;
      }
    }
    return `${out}]`;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) {
    if (strict) throw new NotJson(`a ${prototype?.constructor?.name ?? "non-plain"} object`);
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") return write(toJSON.call(value), depth + 1, strict);
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record).sort();
  let out = "{";
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!;
    const member = record[key];
    if (member === undefined) {
      if (strict) throw undefinedAt(key);
      continue;
    }
    try {
      out += `${out.length > 1 ? "," : ""}${JSON.stringify(key)}:${write(member, depth + 1, strict)}`;
    } catch (error) {
      if (error instanceof NotJson && error.path.length < 32) error.path.push(`.${key}`);
      throw error;
    }
  }
  return `${out}}`;
}

function undefinedAt(key: string): NotJson {
  const error = new NotJson("undefined");
  error.path.push(`.${key}`);
  return error;
}
