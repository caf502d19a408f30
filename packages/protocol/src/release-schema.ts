import { z } from "zod/v4";

/**
 * What produced a run, pinned in `run.started.release`: the runtime and the event schema it
 * wrote, and (when the harness has them) the provider adapters, the context compiler and the
 * configuration that shapes request bytes, the tool registry snapshot, the policy, the
 * verifiers and the budget's pricing table. Every field but the first two is optional: a
 * journal written before it was pinned still parses, and a field a journal does not pin is
 * never compared (it says nothing about the release that wrote it).
 */
export const ReleaseSchema = z.object({
  /** The runtime that wrote the run, e.g. `@yoke/runtime@0.4.1` (`HarnessOptions.runtimeVersion`). */
  runtime: z.string(),
  /** The envelope schema version of the run's events (`EVENT_SCHEMA_VERSION` of the writer). */
  eventSchemaVersion: z.number().int(),
  /** Each provider adapter the run may call: its provider id and the model asked for (the response names the revision that answered). */
  providers: z.array(z.object({ provider: z.string(), modelId: z.string() })).optional(),
  /** The context compiler: its package version and the digest of the configuration that shapes each request's bytes. */
  compiler: z.object({ version: z.string(), config: z.string() }).optional(),
  /** The digest of the tool registry snapshot the run pinned (`run.started.toolSnapshot.digest`). */
  tools: z.string().optional(),
  /** The policy engine's revision (the digest of the rules it decides with). */
  policy: z.string().optional(),
  /** The completion gate's verifiers, in order: id and kind. */
  verifiers: z.array(z.object({ id: z.string(), kind: z.string() })).optional(),
  /** The budget's pricing table: its id, revision and currency. */
  pricing: z.object({ id: z.string(), revision: z.string(), currency: z.string() }).optional(),
});
export type Release = z.infer<typeof ReleaseSchema>;

/** The fields of a release, in the order differences are reported. */
export const RELEASE_FIELDS = ["runtime", "eventSchemaVersion", "providers", "compiler", "tools", "policy", "verifiers", "pricing"] as const;
export type ReleaseField = (typeof RELEASE_FIELDS)[number];

/** One field in which the release a run pinned and the release running it differ. */
export interface ReleaseDifference {
  readonly field: ReleaseField;
  readonly pinned: Release[ReleaseField];
  readonly running: Release[ReleaseField];
}
