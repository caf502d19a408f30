/**
 * @yoke/context-compiler — turns a run's state into the exact model request, and records
 * why: `compile(input, config)` is deterministic (canonical, framed request bytes; turn N's
 * bytes are a prefix of turn N+1's), counts tokens with the model's tokenizer (or a declared
 * estimate), reserves mandatory state and output headroom before optional evidence, cuts
 * oversized tool results to their budget (full text kept as artifacts), wraps untrusted
 * content in provenance delimiters it cannot forge, and returns a manifest of every decision.
 * Manifests are journaled as deltas; `rebuildRequest` reconstructs the request bytes from
 * the journal alone. Compaction makes new context revisions; forks hand a child an explicit
 * parent revision and take back typed claims.
 *
 * `toolResultText`, `truncateUtf8` and `sha256Hex` are how the compiler renders, cuts and
 * hashes a tool result's text: a runtime that bounds or checks outputs uses them so its bytes
 * agree with the request's.
 */
export { sha256Hex, truncateUtf8 } from "./artifacts.js";
export type { Artifact, ArtifactSource } from "./artifacts.js";
export { compactContext } from "./compact-context.js";
export { extractiveSummary, leastTrusted } from "./compaction.js";
export { ContextRevisionSchema } from "./compaction-types.js";
export type { CompactionPolicy, ContextRevision, Summarize, SummarizeRequest } from "./compaction-types.js";
export { compile, createContextCompiler } from "./compiler.js";
export type { CompileResult, ContextCompiler } from "./compiler.js";
export { ChildResultSchema, ClaimSchema, EvidenceRefSchema, ForkOriginSchema, checkChildResult, forkContext } from "./fork.js";
export type { ChildResult, Claim, EvidenceRef, ForkOptions, ForkOrigin } from "./fork.js";
export { contextInputFromRunState } from "./input.js";
export type { CompileConfig, ContextInput, EvidenceItem, PinnedConstraint, SourceMessage } from "./input.js";
export { applyManifestDelta, diffManifest } from "./manifest-delta.js";
export { ManifestDeltaSchema, ManifestSchema } from "./manifest-schema.js";
export type { Allocation, ItemKind, Manifest, ManifestDelta, ManifestItem, ManifestTool, PartTruncation, Section } from "./manifest-schema.js";
export { PDF_PAGE_TOKENS, UNKNOWN_IMAGE_TOKENS, UNKNOWN_PDF_PAGES, mediaPartTokens, mediaTokenRuleForModel } from "./media-tokens.js";
export type { MediaTokenRule } from "./media-tokens.js";
export { isContextOverflow } from "./overflow.js";
export type { ContextOverflowDetails } from "./overflow.js";
export { rebuildRequest } from "./rebuild.js";
export { toolResultText } from "./render.js";
export type { RebuildInput, RebuildResult } from "./rebuild.js";
export { estimatedTokenCounter, tiktokenCounter, tokenCounterForModel } from "./tokenizer.js";
export type { TiktokenEncodingName, TokenCountMode, TokenCounter } from "./tokenizer.js";
export { TRUST_LABELS, TrustLabelSchema } from "./trust.js";
export type { TrustLabel } from "./trust.js";
