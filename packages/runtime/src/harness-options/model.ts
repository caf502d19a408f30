import type { ProviderAdapterV1, SchemaLike } from "@yoke/protocol";
import type { ContextOptions } from "./context.js";

/**
 * The model and what it is asked: the provider adapter, the system prompt, how each request is
 * compiled (`context`), how a failed call is retried and how long one may take, and the
 * structured output its final answer must match. One of the groups `HarnessOptions` is
 * composed of; `OutputSchema` types `result.output`.
 *
 * @example
 * ```ts
 * const model: HarnessModelOptions<typeof Forecast> = {
 *   provider: createOpenAIProvider({ model: "gpt-4o" }),
 *   systemPrompt: "You answer with a forecast.",
 *   context: { constraints: [{ id: "constraint:units", text: "Temperatures in Celsius." }] },
 *   modelRetries: 3,
 *   modelCallTimeoutMs: 120_000,
 *   output: Forecast, // a zod schema
 * };
 * const harness = createHarness({ ...model, tools });
 * ```
 */
export interface HarnessModelOptions<OutputSchema extends SchemaLike | undefined = SchemaLike | undefined> {
  /** The model every request goes to (`ProviderAdapterV1`: a Yoke adapter, or `@yoke/testkit`'s scripted model in tests). Required. */
  provider: ProviderAdapterV1;
  /** The system prompt of every request, trusted (never untrusted data). Default: none. */
  systemPrompt?: string;
  /** How requests are compiled: token counting, output reserve, compaction, pinned constraints, evidence. */
  context?: ContextOptions;
  /** Extra attempts for a retryable provider error (rate limit, unavailable, cut stream). Default 2. */
  modelRetries?: number;
  /**
   * Deadline of one model call attempt, in ms. Default 600 000 (10 minutes). On expiry the
   * attempt's signal aborts and it fails with PROVIDER_TIMEOUT, which is retried like any
   * retryable provider error (`modelRetries`); each failed attempt is journaled as `model.failed`.
   */
  modelCallTimeoutMs?: number;
  /**
   * Ask for structured output: any Standard Schema (zod 4 or 3, valibot, arktype) or
   * `jsonSchema(json, { validate })`. Every request carries its JSON Schema as
   * `responseFormat` (the provider constrains the answer where it can); the final answer
   * must be JSON the schema's own validator accepts, and `result.output` is the validated
   * value, typed from the schema. An answer that does not match goes back to the model
   * (`outputRetries` times), then the run ends `verification_failed`. The accepted JSON is
   * journaled in `run.completed` (`output`). A refusal is never output: the run waits for a person.
   *
   * @example
   * ```ts
   * const harness = createHarness({ provider, output: z.object({ city: z.string(), celsius: z.number() }) });
   * const { output } = await harness.start("Where is it warmest today?");
   * output?.celsius; // number
   * ```
   */
  output?: OutputSchema;
  /** Answers that do not match `output` sent back to the model before the run ends `verification_failed`. Default 2. Not pinned. */
  outputRetries?: number;
}
