import { YokeError } from "./errors.js";
import type { JournalEvent } from "./events.js";

/** The fold's refusal of an event that cannot follow the state it is applied to. */
export function invalid(event: Pick<JournalEvent, "seq" | "type">, why: string): YokeError {
  return new YokeError("EVENT_INVALID", `event ${event.seq} (${event.type}) cannot be applied: ${why}`, {
    details: { seq: event.seq, type: event.type },
  });
}
