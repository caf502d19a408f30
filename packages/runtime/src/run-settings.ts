import { createContextCompiler, type CompileConfig, type ContextCompiler } from "@yoke/context-compiler";
import { YokeError, canonicalJson, parseCallSettings, type CallSettings, type CallSettingsChange, type ProviderMetadata } from "@yoke/protocol";
import type { HarnessDeps, RunContext } from "./run-context.js";

/**
 * The compile config of a run's requests: the harness's, with the run's settings over it
 * (a field given replaces the harness's; provider options replace it per provider id, key by key).
 */
export function settingsConfig(base: CompileConfig, settings: CallSettings | undefined): CompileConfig {
  if (settings === undefined) return base;
  const { temperature, maxOutputTokens, toolChoice, reasoningEffort, providerOptions } = settings;
  return {
    ...base,
    ...(temperature === undefined ? {} : { temperature }),
    ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
    ...(toolChoice === undefined ? {} : { toolChoice }),
    ...(reasoningEffort === undefined ? {} : { reasoningEffort }),
    ...(providerOptions === undefined ? {} : { providerOptions: mergedProviderOptions(base.providerOptions, providerOptions) }),
  };
}

function mergedProviderOptions(base: ProviderMetadata | undefined, given: ProviderMetadata): ProviderMetadata {
  const merged: ProviderMetadata = { ...base };
  for (const [provider, options] of Object.entries(given)) merged[provider] = { ...base?.[provider], ...options };
  return merged;
}

/**
 * Settings given to `start` (`option` names where), checked once, before anything is
 * journaled: CONFIG_INVALID naming the field when malformed, when the output limit is above
 * the model's, or when the compiler cannot take them (no room left for the context). What the
 * provider cannot represent (a reasoning effort for a model without one) is its admission's
 * to refuse, typed, before any network call.
 */
export function checkedSettings(deps: HarnessDeps, value: unknown, option: string): CallSettings | undefined {
  if (value === undefined) return undefined;
  return checkedAgainstProvider(deps, parseCallSettings(value, option), option);
}

/** `checkedSettings` for a `resume`'s change, whose `null` fields drop the run's. */
export function checkedSettingsChange(deps: HarnessDeps, value: unknown, option: string): CallSettingsChange | undefined {
  if (value === undefined) return undefined;
  const change = parseCallSettings(value, option, true);
  checkedAgainstProvider(deps, changedSettings(undefined, change), option);
  return change;
}

function checkedAgainstProvider(deps: HarnessDeps, settings: CallSettings, option: string): CallSettings {
  const limit = deps.provider.capabilities.maxOutputTokens;
  if (settings.maxOutputTokens !== undefined && settings.maxOutputTokens > limit) {
    throw new YokeError(
      "CONFIG_INVALID",
      `${option}.maxOutputTokens (${settings.maxOutputTokens}) is above the ${limit} output tokens ${deps.provider.modelId} can produce`,
      { details: { option: `${option}.maxOutputTokens` } },
    );
  }
  try {
    createContextCompiler(settingsConfig(deps.compileConfig, settings));
  } catch (error) {
    if (!YokeError.isInstance(error)) throw error;
    throw new YokeError("CONFIG_INVALID", `${option}: ${error.message}`, { details: { option }, cause: error });
  }
  return settings;
}

/** The run's settings with the fields `given` names replaced (provider options per provider id), and those it gives as `null` dropped. */
export function changedSettings(current: CallSettings | undefined, given: CallSettingsChange): CallSettings {
  const merged: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(given)) {
    if (value === undefined) continue;
    if (value === null) delete merged[key];
    else merged[key] = key === "providerOptions" ? mergedProviderOptions(current?.providerOptions, value as ProviderMetadata) : value;
  }
  return merged as CallSettings;
}

/** The context's compiler for requests made under `settings`: one per distinct settings, long-lived like the context. */
export function compilerFor(context: RunContext, settings: CallSettings | undefined): ContextCompiler {
  const key = settings === undefined ? "" : canonicalJson(settings);
  let compiler = context.compilers.get(key);
  if (compiler === undefined) {
    compiler = createContextCompiler(settingsConfig(context.deps.compileConfig, settings));
    context.compilers.set(key, compiler);
  }
  return compiler;
}
