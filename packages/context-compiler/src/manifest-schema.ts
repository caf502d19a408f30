import { z } from "zod/v4";
import { JsonValueSchema } from "@yoke/protocol";
import { TrustLabelSchema } from "./trust.js";

/** The version of the manifest format and of the rendering it describes. */
export const MANIFEST_VERSION = 1;

/** What an item is. `message` items come from the run's events; the rest from the config or journal. */
export const ITEM_KINDS = ["system_prompt", "trust_rule", "constraint", "task", "message", "summary", "evidence", "memory"] as const;
export const ItemKindSchema = z.enum(ITEM_KINDS);
export type ItemKind = z.infer<typeof ItemKindSchema>;

/** The section an item's tokens are charged to in the allocation. */
export const SECTIONS = ["system", "tools", "task", "constraints", "transcript", "summary", "evidence"] as const;
export const SectionSchema = z.enum(SECTIONS);
export type Section = z.infer<typeof SectionSchema>;

export const PartTruncationSchema = z.object({
  /** Index of the tool-result part in its message. */
  part: z.number().int().nonnegative(),
  originalBytes: z.number().int().nonnegative(),
  keptBytes: z.number().int().nonnegative(),
  artifactHash: z.string(),
});
export type PartTruncation = z.infer<typeof PartTruncationSchema>;

/**
 * One source item and what the compiler decided about it.
 * - `included`: rendered whole; `truncated`: rendered cut (see `truncations`);
 * - `omitted`: left out, `reason` says why (`budget`, …);
 * - `compacted`: replaced by the summary item named in `reason`.
 */
export const ManifestItemSchema = z.object({
  id: z.string(),
  kind: ItemKindSchema,
  trust: TrustLabelSchema,
  section: SectionSchema,
  decision: z.enum(["included", "truncated", "omitted", "compacted"]),
  reason: z.string().optional(),
  /** Index of the request message the item is rendered into; absent when not rendered. */
  message: z.number().int().nonnegative().optional(),
  tokens: z.number().int().nonnegative(),
  /** SHA-256 of the item's source text, for items whose text is kept as an artifact. */
  contentHash: z.string().optional(),
  truncations: z.array(PartTruncationSchema).optional(),
  /** For a summary: the ids of the items it replaced (lineage). */
  replaces: z.array(z.string()).optional(),
  /** Evidence priority, higher first. */
  priority: z.number().optional(),
});
export type ManifestItem = z.infer<typeof ManifestItemSchema>;

export const ManifestToolSchema = z.object({
  name: z.string(),
  /** SHA-256 of the canonical JSON of the tool spec as declared. */
  digest: z.string(),
  /** The tool registry revision offered (its digest), when the run pinned its tools. */
  revision: z.string().optional(),
  trust: TrustLabelSchema,
  tokens: z.number().int().nonnegative(),
});
export type ManifestTool = z.infer<typeof ManifestToolSchema>;

export const AllocationSchema = z.object({
  contextWindow: z.number().int().positive(),
  /** Output headroom reserved first (the request's maxOutputTokens). */
  outputReserve: z.number().int().nonnegative(),
  /** Tokens of mandatory state: system, tools, task, constraints, the open tool-call pair. */
  mandatory: z.number().int().nonnegative(),
  sections: z.record(SectionSchema, z.number().int().nonnegative()),
  /** Per-message framing overhead, included in `used`. */
  overhead: z.number().int().nonnegative(),
  used: z.number().int().nonnegative(),
  free: z.number().int(),
});
export type Allocation = z.infer<typeof AllocationSchema>;

/**
 * What the model was shown on one compile, and why. Journaled before the model call, as a
 * delta against the previous manifest (`diffManifest`).
 *
 * @example
 * ```ts
 * const { manifest } = compile(input, config);
 * manifest.requestHash;             // sha256 of the request bytes
 * manifest.stablePrefix.messages;   // messages that stay byte-identical next turn
 * manifest.items.filter((item) => item.decision === "omitted");
 * ```
 */
export const ManifestSchema = z.object({
  version: z.literal(MANIFEST_VERSION),
  /** The run-state revision compiled (events folded). */
  revision: z.number().int().nonnegative(),
  /** The context revision: 0, or the compaction revision in effect. */
  contextRevision: z.number().int().nonnegative(),
  model: z.string(),
  tokenizer: z.object({ encoding: z.string(), mode: z.enum(["exact", "estimated"]), charsPerToken: z.number().optional() }),
  /** Digest of the compile config that affects rendering. */
  configDigest: z.string(),
  /** Nonce of the provenance delimiters, fixed for the context. */
  delimiterNonce: z.string(),
  /** The request fields other than messages, exactly as rendered (header frame of the bytes). */
  header: z.record(z.string(), JsonValueSchema),
  tools: z.array(ManifestToolSchema),
  items: z.array(ManifestItemSchema),
  allocation: AllocationSchema,
  /** Messages and bytes that are a byte-identical prefix of the next request unless compacted. */
  stablePrefix: z.object({ messages: z.number().int().nonnegative(), bytes: z.number().int().nonnegative() }),
  messageCount: z.number().int().nonnegative(),
  requestBytes: z.number().int().nonnegative(),
  /** SHA-256 of the request bytes, hex. */
  requestHash: z.string(),
});
export type Manifest = z.infer<typeof ManifestSchema>;

/** Fields of a manifest replaced whole by a delta. */
export type ManifestField = Exclude<keyof Manifest, "items">;

/**
 * A manifest as the change from the one before: the items kept from the previous list, the
 * items appended, and the other fields that changed. Its size follows what changed, not the
 * history.
 */
export const ManifestDeltaSchema = z.object({
  version: z.literal(MANIFEST_VERSION),
  /** requestHash of the manifest this delta applies to; null for a first manifest. */
  base: z.string().nullable(),
  /** How many items of the base manifest are kept, in order, before `append`. */
  keep: z.number().int().nonnegative(),
  append: z.array(ManifestItemSchema),
  set: ManifestSchema.omit({ items: true }).partial(),
});
export type ManifestDelta = z.infer<typeof ManifestDeltaSchema>;
