/**
 * @yoke/context-compiler/internal — what the compiler shares with the runtime and its own
 * tests but does not promise to anyone else: the provenance delimiters and their escaping,
 * the hashing and UTF-8 cutting helpers, the tool-result rendering, the manifest's
 * part-level schemas and the tuning constants. NO SEMVER GUARANTEE: any of these may change
 * or go in a minor or patch release. Import from `@yoke/context-compiler` instead wherever
 * you can.
 */
export { sha256Hex, truncateUtf8 } from "./artifacts.js";
export { delimiterNonce } from "./compiler.js";
export { DEFAULT_TOOL_OUTPUT_BUDGET_BYTES, MESSAGE_OVERHEAD_TOKENS, toolOutputBudget } from "./input.js";
export {
  AllocationSchema,
  ITEM_KINDS,
  ItemKindSchema,
  MANIFEST_VERSION,
  ManifestItemSchema,
  ManifestToolSchema,
  PartTruncationSchema,
  SECTIONS,
  SectionSchema,
} from "./manifest-schema.js";
export { contextOverflowError } from "./overflow.js";
export { toolResultText } from "./render.js";
export { ESTIMATED_CHARS_PER_TOKEN, encodingForModel } from "./tokenizer.js";
export { closeDelimiter, escapeUntrusted, isUntrusted, openDelimiter, trustRule, wrapContent } from "./trust.js";
