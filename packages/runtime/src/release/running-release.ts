import { createRequire } from "node:module";
import { EVENT_SCHEMA_VERSION, canonicalJson, type Release } from "@yoke/protocol";
import { sha256Hex } from "@yoke/context-compiler";
import type { HarnessDeps } from "../run-context.js";

const COMPILER_VERSION = (createRequire(import.meta.url)("@yoke/context-compiler/package.json") as { version: string }).version;

/**
 * The release this harness is: what `run.started.release` pins for a run it starts (`tools`:
 * the digest of the snapshot the run pins), and what a resume compares the pinned release with
 * (`tools`: the digest of the registry's snapshot now).
 */
export function runningRelease(deps: HarnessDeps, toolsDigest: string | undefined): Release {
  const { provider, policy, budget } = deps;
  return {
    runtime: deps.runtimeVersion,
    eventSchemaVersion: EVENT_SCHEMA_VERSION,
    providers: [{ provider: provider.provider, modelId: provider.modelId }],
    compiler: { version: COMPILER_VERSION, config: configDigest(deps.compileConfig) },
    ...(toolsDigest === undefined ? {} : { tools: toolsDigest }),
    ...(policy === undefined ? {} : { policy: policy.revision }),
    verifiers: deps.loopControl.verifiers.map((verifier) => ({ id: verifier.id, kind: verifier.kind })),
    ...(budget?.pricingRef === undefined ? {} : { pricing: { ...budget.pricingRef } }),
  };
}

/**
 * The digest of the compile configuration: the settings that shape a request's bytes. A
 * function in it (a token counter, a compaction hook) stands as its name: its code is the
 * runtime's release, not data.
 */
function configDigest(config: object): string {
  const known = DIGESTS.get(config);
  if (known !== undefined) return known;
  const digest = sha256Hex(canonicalJson(plain(config)));
  DIGESTS.set(config, digest);
  return digest;
}

/** A harness's config digest, computed once (a resume compares it on every run it drives). */
const DIGESTS = new WeakMap<object, string>();

function plain(value: unknown): unknown {
  if (typeof value === "function") return `[function ${value.name}]`;
  if (typeof value === "number" && !Number.isFinite(value)) return String(value);
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === "object") {
    // An instance (a token counter, a tokenizer) stands as its class: its state is code's, not the config's.
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) return `[object ${prototype?.constructor?.name ?? "anonymous"}]`;
    const out: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value)) if (member !== undefined) out[key] = plain(member);
    return out;
  }
  return value;
}
