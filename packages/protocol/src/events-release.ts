import { z } from "zod/v4";
import { JsonValueSchema } from "./model.js";
import { ReleaseSchema, RELEASE_FIELDS } from "./release-schema.js";

const DifferenceSchema = z.object({ field: z.enum(RELEASE_FIELDS), pinned: JsonValueSchema, running: JsonValueSchema.optional() });

/**
 * A run driven by another release than the one it pinned. A resume under the pinned release
 * journals neither; from either on, the run is pinned to `to`.
 */
export const RELEASE_EVENTS = {
  /** The running release differs from the pinned one and the harness's rule found it compatible: `differences` names each field. */
  "release.changed": z.object({ from: ReleaseSchema, to: ReleaseSchema, differences: z.array(DifferenceSchema).min(1) }),
  /**
   * A declared migration (`migrationId`) brings the run from `from` to `to`: the versioned
   * checkpoint from which the running release drives the run, followed in the same
   * transaction by the `events` events the migration journaled.
   */
  "release.migrated": z.object({
    from: ReleaseSchema,
    to: ReleaseSchema,
    migrationId: z.string().min(1),
    differences: z.array(DifferenceSchema).min(1),
    events: z.number().int().nonnegative(),
  }),
} as const;
