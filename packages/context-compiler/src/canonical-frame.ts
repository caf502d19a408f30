// Canonical JSON of rendered messages. `canonicalJson` copies each object whose keys are out
// of order (nearly every message object is) through a generic sort, which made framing most
// of a cold compile's allocation. Here each object's keys are sorted in place (insertion sort:
// objects have a handful of keys), a copy is made only where the order or a member changed,
// and the native serializer writes the result. Anything but plain JSON data (undefined, a
// function, a non-plain object, a non-finite number, a key the engine would enumerate out
// of insertion order, deep nesting) hands the whole value to `canonicalJson`, so the bytes
// and errors are canonicalJson's. `canonical-frame.test.ts` checks the bytes.
import { canonicalJson } from "@yoke/protocol";

const MAX_DEPTH = 128;

class Unsupported {}
const UNSUPPORTED = new Unsupported();

/** `canonicalJson(value)`. */
export function canonicalText(value: unknown): string {
  let ordered: unknown;
  try {
    ordered = inOrder(value, 0);
  } catch (error) {
    if (error !== UNSUPPORTED) throw error;
    return canonicalJson(value);
  }
  return JSON.stringify(ordered);
}

/** The value with every object's keys in code-unit order: the value itself where already so. */
function inOrder(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      if (!Number.isFinite(value)) throw UNSUPPORTED;
      return value;
    case "object":
      if (value === null) return null;
      break;
    default:
      throw UNSUPPORTED;
  }
  if (depth >= MAX_DEPTH) throw UNSUPPORTED;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      const ordered = inOrder(item, depth + 1);
      if (ordered !== item && copy === undefined) copy = value.slice(0, index);
      if (copy !== undefined) copy.push(ordered);
    }
    return copy ?? value;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) throw UNSUPPORTED;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  let changed = false;
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!;
    const first = key.charCodeAt(0);
    // Integer-like keys are enumerated first whatever their order; "__proto__" cannot be assigned.
    if ((first >= 0x30 && first <= 0x39) || key === "__proto__") throw UNSUPPORTED;
    let at = index - 1;
    if (at >= 0 && keys[at]! > key) {
      changed = true;
      while (at >= 0 && keys[at]! > key) {
        keys[at + 1] = keys[at]!;
        at--;
      }
      keys[at + 1] = key;
    }
  }
  let members: unknown[] | undefined;
  for (let index = 0; index < keys.length; index++) {
    const member = record[keys[index]!];
    const ordered = inOrder(member, depth + 1);
    if (ordered !== member) {
      changed = true;
      members ??= [];
      members[index] = ordered;
    }
  }
  if (!changed) return value;
  const copy: Record<string, unknown> = {};
  for (let index = 0; index < keys.length; index++) {
    const key = keys[index]!;
    copy[key] = members?.[index] ?? record[key];
  }
  return copy;
}
