import { canonicalJson, type JournalEvent } from "@yoke/protocol";
import { SCHEMA_ADDITIONS, isDeclaredAddition, type SchemaAddition } from "./schema-additions.js";

/** Where a replayed event first differs from the recorded one: a field path and both values (`undefined` for a missing side). */
export interface Difference {
  readonly path: string;
  readonly recorded: unknown;
  readonly replayed: unknown;
}

/**
 * Compares what replay appended with what was recorded at the same seq: type, causation id,
 * time and data, never hashes (they follow from the rest) and never `run.started.data.release`
 * (a release check owns it: a replay runs the current release on purpose). A field the record
 * lacks and the replay holds is equal only when `additions` declare it (added since the record
 * was made). Null when equal.
 */
export function firstDifference(recorded: JournalEvent, replayed: JournalEvent, additions: readonly SchemaAddition[] = SCHEMA_ADDITIONS): Difference | null {
  for (const field of ["type", "causationId", "at"] as const) {
    if (recorded[field] !== replayed[field]) return { path: field, recorded: recorded[field], replayed: replayed[field] };
  }
  const skipRelease = recorded.type === "run.started";
  const added = (path: string) => isDeclaredAddition(additions, recorded.type, path);
  return differenceIn("data", withoutRelease(recorded.data, skipRelease), withoutRelease(replayed.data, skipRelease), added);
}

function withoutRelease(data: unknown, skip: boolean): unknown {
  if (!skip || data === null || typeof data !== "object") return data;
  const { release: _release, ...rest } = data as Record<string, unknown>;
  return rest;
}

function differenceIn(path: string, recorded: unknown, replayed: unknown, added: (path: string) => boolean): Difference | null {
  if (recorded === undefined && replayed !== undefined && added(path)) return null;
  if (isObject(recorded) && isObject(replayed)) {
    const keys = [...new Set([...Object.keys(recorded), ...Object.keys(replayed)])].sort();
    for (const key of keys) {
      const found = differenceIn(`${path}.${key}`, recorded[key], replayed[key], added);
      if (found !== null) return found;
    }
    return null;
  }
  if (Array.isArray(recorded) && Array.isArray(replayed)) {
    for (let index = 0; index < Math.max(recorded.length, replayed.length); index += 1) {
      const found = differenceIn(`${path}[${index}]`, recorded[index], replayed[index], added);
      if (found !== null) return found;
    }
    return null;
  }
  if (recorded === replayed) return null;
  if (recorded !== undefined && replayed !== undefined && canonicalJson(recorded) === canonicalJson(replayed)) return null;
  return { path, recorded, replayed };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
