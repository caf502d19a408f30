// Type tests of the option groups, checked by the package's `tsc` (`pnpm typecheck`), not run by vitest.
import type { ProviderAdapterV1 } from "@yoke/protocol";
import { expectTypeOf } from "vitest";
import { z } from "zod";
import {
  createHarness,
  type Harness,
  type HarnessBudgetOptions,
  type HarnessEnvironmentOptions,
  type HarnessLoopOptions,
  type HarnessModelOptions,
  type HarnessObservabilityOptions,
  type HarnessOptions,
  type HarnessPolicyOptions,
  type HarnessStoreOptions,
  type HarnessToolOptions,
} from "../index.js";

type Groups = [
  HarnessStoreOptions,
  HarnessModelOptions,
  HarnessToolOptions,
  HarnessPolicyOptions,
  HarnessBudgetOptions,
  HarnessLoopOptions,
  HarnessObservabilityOptions,
  HarnessEnvironmentOptions,
];
type KeysOf<List extends readonly object[]> = List extends readonly [infer Head, ...infer Rest extends object[]] ? keyof Head | KeysOf<Rest> : never;
// Each group's keys that another group also has: `never` for every group when they partition the options.
type Shared<List extends readonly object[], Seen extends PropertyKey = never> = List extends readonly [infer Head, ...infer Rest extends object[]]
  ? (keyof Head & (Seen | KeysOf<Rest>)) | Shared<Rest, Seen | keyof Head>
  : never;

// Every option is in exactly one group, and `HarnessOptions` adds none of its own.
expectTypeOf<keyof HarnessOptions>().toEqualTypeOf<KeysOf<Groups>>();
expectTypeOf<Shared<Groups>>().toEqualTypeOf<never>();

// The options a harness takes, by name: grouping moved none, added none, dropped none.
expectTypeOf<keyof HarnessOptions>().toEqualTypeOf<
  | "journal"
  | "tenantId"
  | "lease"
  | "artifacts"
  | "provider"
  | "systemPrompt"
  | "context"
  | "modelRetries"
  | "modelCallTimeoutMs"
  | "output"
  | "outputRetries"
  | "tools"
  | "registry"
  | "discovery"
  | "subagents"
  | "maxToolCallsPerTurn"
  | "maxConcurrentTools"
  | "maxToolInputBytes"
  | "maxEventOutputBytes"
  | "policy"
  | "planDelegation"
  | "principal"
  | "approvalTtlMs"
  | "capabilities"
  | "maxTurns"
  | "budget"
  | "checkCompletion"
  | "truncatedCallRetries"
  | "verifiers"
  | "verifierRetries"
  | "maxTokensContinuations"
  | "loopDetection"
  | "workspace"
  | "interrupts"
  | "logger"
  | "onEvent"
  | "secrets"
  | "clock"
  | "ids"
  | "sleep"
  | "timers"
  | "runtimeVersion"
  | "releases"
>();

declare const provider: ProviderAdapterV1;

// Groups type configuration built apart; the harness still takes one flat object.
const store: HarnessStoreOptions = { journal: "./yoke.db", tenantId: "tenant_a", lease: false };
const model: HarnessModelOptions<undefined> = { provider, modelRetries: 3 };
expectTypeOf(createHarness({ ...store, ...model })).toEqualTypeOf<Harness<undefined>>();
// @ts-expect-error the groups are not nested objects
createHarness({ provider, store: { journal: "./yoke.db" } });

// The model group carries the output schema's type through to the harness.
const Forecast = z.object({ city: z.string(), celsius: z.number() });
const forecasting: HarnessModelOptions<typeof Forecast> = { provider, output: Forecast };
const forecast = await createHarness(forecasting).start("Where is it warmest today?");
expectTypeOf(forecast.output).toEqualTypeOf<{ city: string; celsius: number } | undefined>();
expectTypeOf<HarnessOptions<typeof Forecast>["output"]>().toEqualTypeOf<typeof Forecast | undefined>();
