// Type tests, checked by the package's `tsc` (`pnpm typecheck`), not run by vitest:
// `result.output` is typed from the harness's `output` schema, whatever library declared it.
import { toStandardJsonSchema } from "@valibot/to-json-schema";
import type { ProviderAdapterV1 } from "@yoke/protocol";
import { type } from "arktype";
import * as v from "valibot";
import { expectTypeOf } from "vitest";
import { z } from "zod";
import { z as z3 } from "zod3";
import { jsonSchema } from "./define-tool.js";
import { createHarness } from "./harness.js";
import type { RunResult, WaitingRunResult } from "./harness-types.js";

declare const provider: ProviderAdapterV1;

const z4 = await createHarness({ provider, output: z.object({ city: z.string(), unit: z.string().default("C") }) }).start("t");
expectTypeOf(z4.output).toEqualTypeOf<{ city: string; unit: string } | undefined>();

const zod3 = await createHarness({ provider, output: z3.object({ city: z3.string() }) }).start("t");
expectTypeOf(zod3.output).toEqualTypeOf<{ city: string } | undefined>();

const valibot = await createHarness({ provider, output: toStandardJsonSchema(v.object({ celsius: v.number() })) }).resume("run_1");
expectTypeOf(valibot.output).toEqualTypeOf<{ celsius: number } | undefined>();

const ark = await createHarness({ provider, output: type({ celsius: "number" }) }).startOrResume("t", { runId: "run_1" });
expectTypeOf(ark.output).toEqualTypeOf<{ celsius: number } | undefined>();

const plain = await createHarness({ provider, output: jsonSchema<{ n: number }>({ type: "object" }) }).start("t");
expectTypeOf(plain.output).toEqualTypeOf<{ n: number } | undefined>();

// Without an output schema there is no output.
const none = await createHarness({ provider }).start("t");
expectTypeOf(none.output).toEqualTypeOf<undefined>();
expectTypeOf(none).toExtend<RunResult | WaitingRunResult>();
