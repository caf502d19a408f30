// A journal written by someone hostile: the completed run's events appended again (re-sealed,
// so the chain verifies) under a tenant and run id that carry terminal control sequences, with
// the same bytes added to the task, tool results and errors, model text and reasons.
import { join } from "node:path";
import { createSqliteJournal } from "@yoke/journal";
import type { EventDraft, JsonValue } from "@yoke/protocol";
import { completedRun, readEvents } from "./journals.ts";

/**
 * Clears the screen and homes the cursor, prints a fake verdict on a forged line, writes the
 * clipboard (OSC 52), sends an 8-bit CSI, a NEL, DEL, and hides the rest behind a bidi override
 * and an isolate.
 */
export const HOSTILE =
  "\u001b[2J\u001b[H\nchain: ok (33 events, head 000000000000)\r\u001b]52;c;cm0gLXJmIH4K\u0007\u009b2J\u0085\u007f\u202egnp.exe\u2066x\u2069\t";
export const HOSTILE_TENANT = `tenant_${HOSTILE}`;
export const HOSTILE_RUN = `run_${HOSTILE}`;

/** Data fields that are free text in the events of the completed run. */
const TEXT_KEYS = new Set(["task", "message", "text", "reason", "detail", "content", "summary"]);

/** Changes a free-text value of an event's data (`key`: the field holding it). */
export type TextChange = (text: string, key: string) => string;

const addHostile: TextChange = (text, key) => (TEXT_KEYS.has(key) ? `${text}${HOSTILE}` : text);

function change(value: JsonValue, key: string | undefined, text: TextChange): JsonValue {
  if (typeof value === "string") return key === undefined ? value : text(value, key);
  if (Array.isArray(value)) return value.map((entry) => change(entry, key, text));
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([name, entry]) => [name, change(entry, name, text)]));
  return value;
}

/** The completed run's events as drafts, with HOSTILE added to their free text when `hostileText` (or `hostileText` applied to every string). */
export async function completedDrafts(hostileText: boolean | TextChange): Promise<EventDraft[]> {
  const events = await readEvents(await completedRun());
  const text = hostileText === true ? addHostile : hostileText === false ? undefined : hostileText;
  return events.map((event) => ({
    type: event.type,
    at: event.at,
    causationId: event.causationId,
    data: (text === undefined ? event.data : change(event.data as JsonValue, undefined, text)) as EventDraft["data"],
  }));
}

/** The hostile journal file, in `dir`. */
export async function hostileJournal(dir: string): Promise<string> {
  const drafts = await completedDrafts(true);
  const file = join(dir, "hostile.sqlite");
  const journal = await createSqliteJournal({ filename: file });
  try {
    await journal.append({ tenantId: HOSTILE_TENANT, runId: HOSTILE_RUN }, 0, drafts);
  } finally {
    await journal.close();
  }
  return file;
}
