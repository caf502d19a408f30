// The fold of a journal as one line per stream: a digest of `reduceRun`'s whole state (maps
// as their entries sorted by key, sets as arrays), with the phase and outcome in clear.
import { createHash } from "node:crypto";
import { YokeError, canonicalJson, reduceRun, type JournalEvent } from "@yoke/protocol";

/** A value canonicalJson can write: maps as their entries sorted by key, sets as arrays. */
export function plain(value: unknown): unknown {
  if (value instanceof Map) return { $map: [...value.entries()].sort(([a], [b]) => (String(a) < String(b) ? -1 : 1)).map(([k, v]) => [k, plain(v)]) };
  if (value instanceof Set) return [...value].map(plain);
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  return value;
}

export function errorOf(error: unknown): { code: string; message: string } {
  return YokeError.isInstance(error) ? { code: error.code, message: error.message } : { code: "THROWN", message: String(error) };
}

/** One line per stream, in the map's order: `{ runId, digest, phase, outcome }`, or `{ runId, error }` when the fold refuses the events. */
export function foldLines(streams: ReadonlyMap<string, readonly JournalEvent[]>): string[] {
  return [...streams.entries()].map(([runId, events]) => {
    try {
      const state = reduceRun(events);
      const digest = createHash("sha256")
        .update(canonicalJson(plain(state)))
        .digest("hex");
      return canonicalJson({ runId, digest, phase: state.phase, outcome: state.outcome ?? null });
    } catch (error) {
      return canonicalJson({ runId, error: errorOf(error) });
    }
  });
}
