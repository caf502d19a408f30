/**
 * @yoke/tool-registry — every tool a run can call is an immutable, pinned revision.
 *
 * Local tools and remote sources (`ToolSourceV1`, e.g. an MCP server through `@yoke/mcp`)
 * register revisions identified by SHA-256 digests over canonical JSON: `modelDigest` over
 * what the model sees, `contractDigest` over what the runtime enforces, `digest` over both
 * and where the tool comes from. A run pins a `snapshot()`; `discover` filters it per
 * principal and task; `resolve` tells whether a pinned revision may still be called and
 * reports drift otherwise; declared `readmission` rules say which drifts are admitted.
 * Imports `@yoke/protocol` only.
 */
export { changesBetween } from "./changes.js";
export { contractOf, recordOf, revisionOf } from "./digests.js";
export type { RevisionOptions } from "./digests.js";
export { matchesFilter, setDigestOf } from "./discovery.js";
export { createToolRegistry, verifyRevisionRecord } from "./registry.js";
export type { LifecycleState, ToolRegistry, ToolRegistryOptions } from "./registry.js";
