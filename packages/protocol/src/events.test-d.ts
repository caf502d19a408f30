// Type tests, checked by the package's `tsc` (`pnpm typecheck`), not run by vitest:
// `expectTypeOf` is a no-op at run time; a wrong type fails the compile.
import { expectTypeOf } from "vitest";
import { isEventOfType, type EventData, type EventDraft, type JournalEvent, type YokeEvent, type YokeEventDraft, type YokeEventOf } from "./events.js";
import type { JournalV1 } from "./journal.js";
import { readYokeEvents } from "./read-events.js";

declare const event: YokeEvent;

// Narrowing on `type` types `data`.
if (event.type === "model.responded") expectTypeOf(event.data).toEqualTypeOf<EventData<"model.responded">>();

// The guard narrows to one member, or to the members named.
if (isEventOfType(event, "model.failed")) {
  expectTypeOf(event).toEqualTypeOf<YokeEventOf<"model.failed">>();
  expectTypeOf(event.data.requestId).toEqualTypeOf<string | undefined>();
  expectTypeOf(event.data.attempt).toEqualTypeOf<number>();
}
if (isEventOfType(event, ["run.failed", "run.completed"])) {
  expectTypeOf(event.type).toEqualTypeOf<"run.failed" | "run.completed">();
}
if (isEventOfType(event, "run.failed")) {
  expectTypeOf(event.data.code).toEqualTypeOf<string>();
  // @ts-expect-error run.failed data has no outcome
  void event.data.outcome;
}
// @ts-expect-error not an event type of Yoke's
isEventOfType(event, "turn.exploded");

// A typed event is a stored event; a typed draft is what `append` takes.
expectTypeOf<YokeEvent>().toExtend<JournalEvent>();
expectTypeOf<YokeEventDraft>().toExtend<EventDraft>();
expectTypeOf<readonly YokeEventDraft[]>().toExtend<Parameters<JournalV1["append"]>[2]>();

// readYokeEvents yields the union.
declare const journal: JournalV1;
expectTypeOf(readYokeEvents(journal, { tenantId: "t", runId: "r" })).toExtend<AsyncIterable<YokeEvent>>();
