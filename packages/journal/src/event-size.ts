import { YokeError, type RunScope } from "@yoke/protocol";
import type { SealedEvent } from "./chain.js";

/**
 * The default `maxEventBytes`: 8 MiB. Thirty-two times the runtime's default inline tool
 * output (256 KiB), so no step of a run that keeps to its own output bounds comes near it,
 * yet one event can no longer take hundreds of megabytes to append, read, export or show.
 */
export const DEFAULT_MAX_EVENT_BYTES = 8 * 1024 * 1024;

/** The store option both journals take. */
export interface EventSizeOptions {
  /**
   * The largest event an append accepts, in bytes: the UTF-8 length of the event's canonical
   * JSON as stored and exported (envelope, data and hash). A larger event is refused with
   * JOURNAL_EVENT_TOO_LARGE and nothing of its append is written. A positive integer;
   * default {@link DEFAULT_MAX_EVENT_BYTES}. Events already stored are read whatever their size.
   */
  readonly maxEventBytes?: number;
}

/** The store's limit: the option, checked, or the default. CONFIG_INVALID for anything but a positive integer. */
export function maxEventBytesOf(options: EventSizeOptions | undefined): number {
  const limit = options?.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw new YokeError("CONFIG_INVALID", `maxEventBytes must be a positive integer, not ${String(limit)}`, { details: { option: "maxEventBytes" } });
  }
  return limit;
}

/**
 * UTF-8 bytes of `sealed`'s canonical JSON (what `canonicalJson(event)` gives): the envelope
 * serialized with `null` for data, plus the data's canonical JSON in its place.
 */
export function eventBytes(sealed: SealedEvent): number {
  const { event, canonicalData } = sealed;
  const envelope = JSON.stringify({ ...event, data: null });
  // JSON.stringify and canonicalJson agree on every envelope field but the key order, which does not change the length.
  return Buffer.byteLength(envelope, "utf8") - 4 + Buffer.byteLength(canonicalData, "utf8");
}

/** At least the bytes of `sealed`: computed only when cheap bounds cannot settle it. */
function upperBound(sealed: SealedEvent): number {
  const { event, canonicalData } = sealed;
  // A UTF-16 unit is at most 3 UTF-8 bytes, and at most 6 once escaped inside a JSON string (\uXXXX).
  const strings = event.tenantId.length + event.runId.length + event.type.length + (event.causationId?.length ?? 4);
  return canonicalData.length * 3 + strings * 6 + event.prevHash.length + event.hash.length + 256;
}

/**
 * Refuses an append holding an event larger than `limit` (JOURNAL_EVENT_TOO_LARGE), before
 * anything is written. Called by every store between sealing and writing.
 */
export function checkEventSizes(scope: RunScope, sealed: readonly SealedEvent[], limit: number): void {
  for (let index = 0; index < sealed.length; index++) {
    const entry = sealed[index]!;
    if (upperBound(entry) <= limit) continue;
    const bytes = eventBytes(entry);
    if (bytes <= limit) continue;
    const { seq, type } = entry.event;
    throw new YokeError(
      "JOURNAL_EVENT_TOO_LARGE",
      `event ${seq} (${type}) is ${bytes} bytes; this journal holds events of at most ${limit} bytes (maxEventBytes); nothing was appended`,
      { details: { tenantId: scope.tenantId, runId: scope.runId, seq, type, bytes, maxEventBytes: limit, index } },
    );
  }
}
