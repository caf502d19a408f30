// Type tests of @yoke/runtime's public entry, checked by the package's `tsc`.
import type { JournalV1, ProviderAdapterV1, RunState } from "@yoke/protocol";
import { expectTypeOf } from "vitest";
import { createHarness, type Harness, type HarnessOptions, type RunResult } from "./index.js";

declare const provider: ProviderAdapterV1;

// The journal option takes a JournalV1 or the path of a SQLite file.
expectTypeOf<HarnessOptions["journal"]>().toEqualTypeOf<JournalV1 | string | undefined>();
const harness = createHarness({ journal: "./yoke.db", provider });
// Without an `output` schema, a run has no structured output; `Harness` alone (Output = unknown) accepts any harness.
expectTypeOf(harness).toEqualTypeOf<Harness<undefined>>();
expectTypeOf(harness).toMatchTypeOf<Harness>();
expectTypeOf(harness.close()).toEqualTypeOf<Promise<void>>();
// @ts-expect-error a provider is required
createHarness({ journal: "./yoke.db" });

expectTypeOf(harness.start("task")).toEqualTypeOf<Promise<RunResult<undefined>>>();
expectTypeOf<RunResult["text"]>().toEqualTypeOf<string>();
expectTypeOf<RunResult["state"]>().toEqualTypeOf<RunState>();
expectTypeOf(harness.getState("run_1")).toEqualTypeOf<Promise<RunState>>();
