import { z } from "zod/v4";
import { YokeError } from "./errors.js";
import { ProviderMetadataSchema, ReasoningEffortSchema } from "./model.js";

/**
 * Model settings of one run's calls, given to `start` (journaled in `run.started.settings`)
 * or to `resume` (journaled in `settings.changed`, from the next request on). Each field
 * given replaces the harness's `context` setting of the same name; `providerOptions` replace
 * the harness's per provider id, key by key. They go into the request header, so the
 * request hash covers them and a journal rebuilds them.
 *
 * @example
 * ```ts
 * const settings: CallSettings = { temperature: 0.2, maxOutputTokens: 1_024, reasoningEffort: "low" };
 * await harness.start("Summarize the incident.", { settings });
 * ```
 */
export const CallSettingsSchema = z.strictObject({
  temperature: z.number().min(0).max(2).optional(),
  /** The most output tokens a call may produce: sent as `maxOutputTokens`, and what a budget reserves per call. */
  maxOutputTokens: z.number().int().positive().optional(),
  toolChoice: z.enum(["auto", "none", "required"]).optional(),
  reasoningEffort: ReasoningEffortSchema.optional(),
  providerOptions: ProviderMetadataSchema.optional(),
});
export type CallSettings = z.infer<typeof CallSettingsSchema>;

/**
 * A change of a run's settings (`resume`): a field given replaces the run's, `null` drops it
 * (the harness's `context` setting applies again).
 */
export const CallSettingsChangeSchema = z.strictObject({
  temperature: CallSettingsSchema.shape.temperature.unwrap().nullable().optional(),
  maxOutputTokens: CallSettingsSchema.shape.maxOutputTokens.unwrap().nullable().optional(),
  toolChoice: CallSettingsSchema.shape.toolChoice.unwrap().nullable().optional(),
  reasoningEffort: ReasoningEffortSchema.nullable().optional(),
  providerOptions: ProviderMetadataSchema.nullable().optional(),
});
export type CallSettingsChange = z.infer<typeof CallSettingsChangeSchema>;

/** Checks call settings given at `option` (e.g. `start.settings`); CONFIG_INVALID names the first bad field. */
export function parseCallSettings(value: unknown, option: string): CallSettings;
/** Checks a change of call settings (`null` drops a field) given at `option` (e.g. `resume.settings`). */
export function parseCallSettings(value: unknown, option: string, change: true): CallSettingsChange;
export function parseCallSettings(value: unknown, option: string, change = false): CallSettings | CallSettingsChange {
  const parsed = (change ? CallSettingsChangeSchema : CallSettingsSchema).safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const path = [...(issue.code === "unrecognized_keys" ? [issue.keys[0]!] : []), ...issue.path.map(String)];
  const field = [option, ...path].join(".");
  throw new YokeError("CONFIG_INVALID", `${field}: ${issue.message}`, { details: { option: field }, cause: parsed.error });
}
