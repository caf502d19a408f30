/**
 * @yoke/policy — standing rules as data, decided on the whole tuple.
 *
 * Imports `@yoke/protocol` only; `@yoke/runtime` composes it.
 */
export { actionDigestOf } from "./digests.js";
