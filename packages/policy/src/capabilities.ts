/**
 * @yoke/policy/capabilities — what a tool holds instead of a secret: short-lived
 * capabilities scoped to tenant, resource, verbs, action and expiry, HMAC-SHA256 tokens
 * through node:crypto, attenuation that only narrows, revocation of whole subtrees, and
 * receipts a result can carry instead of a credential.
 *
 * Imports `@yoke/protocol` only; `@yoke/runtime` hands each dispatched attempt a capability.
 */
export { createCapabilityBroker, type CapabilityBroker, type CapabilityBrokerOptions } from "./capabilities/broker.js";
export { resourceCovers, resourceWithin } from "./capabilities/scope.js";
