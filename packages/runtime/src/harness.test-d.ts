// Type tests, checked by the package's `tsc` (`pnpm typecheck`), not run by vitest:
// `expectTypeOf` is a no-op at run time; a wrong type fails the compile.
import { isEventOfType, type EventData, type JournalEvent, type YokeEvent } from "@yoke/protocol";
import { expectTypeOf } from "vitest";
import type { Harness, HarnessOptions } from "./harness-types.js";

declare const harness: Harness;

// harness.events() yields the typed union: no parse needed to read `data`.
expectTypeOf(harness.events("run_1")).toEqualTypeOf<AsyncIterable<YokeEvent>>();
for await (const event of harness.events("run_1")) {
  if (event.type === "run.failed") expectTypeOf(event.data).toEqualTypeOf<EventData<"run.failed">>();
  if (isEventOfType(event, "model.failed")) expectTypeOf(event.data.requestId).toEqualTypeOf<string | undefined>();
}

// onEvent is given a YokeEvent; a handler written for JournalEvent still fits.
expectTypeOf<Parameters<NonNullable<HarnessOptions["onEvent"]>>[0]>().toEqualTypeOf<YokeEvent>();
expectTypeOf<(event: JournalEvent) => void>().toExtend<NonNullable<HarnessOptions["onEvent"]>>();
