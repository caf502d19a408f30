/**
 * @yoke/verifier — the completion gate's checks, as data plus code.
 *
 * Each factory returns a `VerifierV1` (from `@yoke/protocol`): an id, a kind, whether it may
 * run again on replay (`replaySafe`), what the runtime reserves for it (`reserve`) and
 * `verify(input)`, which resolves to a `VerifierVerdict`. A verdict that does not pass is an
 * answer ("the tests fail"); a verifier that cannot answer (its command cannot start or
 * outlives its timeout, its check throws) rejects with YokeError VERIFIER_FAILED, and an
 * aborted signal rejects with CANCELLED. Imports `@yoke/protocol` only; `@yoke/runtime`
 * composes it (harness option `verifiers`).
 */
export { commandVerifier } from "./command-verifier.js";
export type { CommandVerdictDetails, CommandVerifierOptions, VerifierTimers } from "./command-verifier.js";
export { defineVerifier } from "./define-verifier.js";
export type { VerifierDefinition } from "./define-verifier.js";
export { invariantVerifier } from "./invariant-verifier.js";
export type { InvariantResult, InvariantVerifierOptions } from "./invariant-verifier.js";
export { parseCitations } from "./citations.js";
export type { Citation } from "./citations.js";
export { evidenceVerifier } from "./evidence-verifier.js";
export type { CheckedCitation, CitationStatus, EvidenceVerifierOptions } from "./evidence-verifier.js";
export { schemaVerifier } from "./schema-verifier.js";
export type { SchemaVerifierOptions } from "./schema-verifier.js";
export { all, any, sequence } from "./compose.js";
export { fromCheck } from "./from-check.js";
export type { CheckContext, CheckResult, FromCheckOptions } from "./from-check.js";
export { verdictFromError } from "./verdict-from-error.js";
