// Type tests of @yoke/testkit's public entries, checked by the package's `tsc`.
import { YokeError, type ModelResponse, type ProviderAdapterV1 } from "@yoke/protocol";
import { expectTypeOf } from "vitest";
import { runCrashInjector } from "./crash.js";
import { callTools, createScriptedModel, failWith, say, type ScriptedModel, type ScriptedStep } from "./index.js";
// @ts-expect-error the crash injector is in @yoke/testkit/crash, not on the root entry
import { runCrashInjector as notOnRoot } from "./index.js";

void notOnRoot;
expectTypeOf(runCrashInjector).toBeFunction();

// A scripted model is a provider adapter with its script's bookkeeping.
const model = createScriptedModel([say("done")]);
expectTypeOf(model).toEqualTypeOf<ScriptedModel>();
expectTypeOf(model).toExtend<ProviderAdapterV1>();
expectTypeOf(model.generate).returns.toEqualTypeOf<Promise<ModelResponse>>();
expectTypeOf(model.assertConsumed).toBeFunction();

// Steps are values of one type, whatever they script.
expectTypeOf(say("x")).toExtend<ScriptedStep>();
expectTypeOf(callTools([{ name: "echo", args: { text: "hi" } }])).toExtend<ScriptedStep>();
expectTypeOf(failWith(new YokeError("PROVIDER_UNAVAILABLE", "x"))).toExtend<ScriptedStep>();
