import { CallInputReader } from "./call-input.js";
import { parseYokeEvent, type YokeEvent } from "./events.js";
import type { JournalV1, ReadOptions, RunScope } from "./journal.js";

/**
 * Reads a run's events as the typed `YokeEvent` union: `journal.read` (which yields the
 * stored `JournalEvent`, whatever store it is) with each event validated once by
 * `parseYokeEvent`, so `switch (event.type)` types `event.data`, and each action's input kept
 * once in its response (`inputFromCall`) given back (`CallInputReader`; a page that starts
 * after the response leaves the marker). Throws EVENT_INVALID for an
 * event that is not one of Yoke's, JOURNAL_SCHEMA_UNSUPPORTED for a newer schema version,
 * and whatever the store's `read` throws.
 *
 * @example
 * ```ts
 * for await (const event of readYokeEvents(journal, { tenantId: "tenant_a", runId })) {
 *   if (event.type === "run.failed") console.log(event.data.code, event.data.requestId);
 * }
 * ```
 */
export async function* readYokeEvents(journal: Pick<JournalV1, "read">, scope: RunScope, options?: ReadOptions): AsyncGenerator<YokeEvent, void, undefined> {
  const calls = new CallInputReader();
  for await (const event of journal.read(scope, options)) yield calls.read(parseYokeEvent(event));
}
