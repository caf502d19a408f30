import { YokeError, type VerifierV1 } from "@yoke/protocol";
import type { CompletionCheck } from "./harness-types.js";
import {
  DEFAULT_LOOP_CYCLE,
  DEFAULT_LOOP_THRESHOLD,
  DEFAULT_MAX_TOKENS_CONTINUATIONS,
  DEFAULT_VERIFIER_RETRIES,
  type LoopControl,
  type LoopControlOptions,
  type LoopDetectionOptions,
  type ResolvedLoopDetection,
} from "./loop-control.js";
import { completionCheckVerifier } from "./verification/check-verifier.js";

/** Validates the loop options and fills in the defaults. Throws CONFIG_INVALID. */
export function resolveLoopControl(options: LoopControlOptions, checkCompletion: CompletionCheck | undefined): LoopControl {
  const given = options.verifiers === undefined ? [] : Array.isArray(options.verifiers) ? options.verifiers : [options.verifiers as VerifierV1];
  const ids = new Set<string>();
  for (const verifier of given) {
    if (verifier?.specificationVersion !== "v1" || typeof verifier.verify !== "function" || typeof verifier.id !== "string" || verifier.id === "") {
      invalid("verifiers must implement VerifierV1 (specificationVersion v1, a non-empty id, verify)", "verifiers");
    }
    if (ids.has(verifier.id)) invalid(`verifiers: two verifiers share the id ${verifier.id}`, "verifiers");
    ids.add(verifier.id);
  }
  const verifiers = checkCompletion === undefined ? [...given] : [completionCheckVerifier(checkCompletion), ...given];
  const verifierRetries = nonNegative(options.verifierRetries ?? DEFAULT_VERIFIER_RETRIES, "verifierRetries");
  const maxTokensContinuations = nonNegative(options.maxTokensContinuations ?? DEFAULT_MAX_TOKENS_CONTINUATIONS, "maxTokensContinuations");
  if (options.workspace !== undefined && (typeof options.workspace !== "string" || options.workspace === ""))
    invalid("workspace must be a non-empty path", "workspace");
  return { verifiers, verifierRetries, maxTokensContinuations, loopDetection: resolveLoopDetection(options.loopDetection), workspace: options.workspace };
}

function resolveLoopDetection(options: LoopDetectionOptions | false | undefined): ResolvedLoopDetection | undefined {
  if (options === false) return undefined;
  const threshold = options?.threshold ?? DEFAULT_LOOP_THRESHOLD;
  if (!Number.isInteger(threshold) || threshold < 2) invalid("loopDetection.threshold must be an integer of at least 2", "loopDetection");
  const cycle = options?.cycle ?? DEFAULT_LOOP_CYCLE;
  if (!Number.isInteger(cycle) || cycle < 1) invalid("loopDetection.cycle must be a positive integer", "loopDetection");
  const perTool = options?.perTool ?? {};
  for (const [name, policy] of Object.entries(perTool)) {
    if (policy.threshold !== undefined && (!Number.isInteger(policy.threshold) || policy.threshold < 2)) {
      invalid(`loopDetection.perTool.${name}.threshold must be an integer of at least 2`, "loopDetection");
    }
    if (policy.optOut !== undefined && (typeof policy.optOut !== "string" || policy.optOut.trim() === "")) {
      invalid(`loopDetection.perTool.${name}.optOut must be a non-empty reason`, "loopDetection");
    }
    const paths = policy.caseInsensitive;
    if (paths !== undefined && !(Array.isArray(paths) && paths.every((path) => typeof path === "string" && /^[^.\s]+(\.[^.\s]+)*$/.test(path)))) {
      invalid(`loopDetection.perTool.${name}.caseInsensitive must be dotted argument paths`, "loopDetection");
    }
  }
  return { threshold, cycle, perTool };
}

function nonNegative(value: number, option: string): number {
  if (!Number.isInteger(value) || value < 0) invalid(`${option} must be a non-negative integer`, option);
  return value;
}

function invalid(message: string, option: string): never {
  throw new YokeError("CONFIG_INVALID", message, { details: { option } });
}
