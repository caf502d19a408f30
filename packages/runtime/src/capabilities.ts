import { YokeError, type Capability, type CapabilityBrokerV1, type Clock, type AnyToolDeclaration } from "@yoke/protocol";
import type { DispatchItem } from "@yoke/scheduler";

/**
 * The harness's `capabilities` option: a broker that mints one short-lived capability per
 * dispatched attempt, and how long it lives (default: the tool's timeout).
 *
 * @example
 * ```ts
 * import { createCapabilityBroker } from "@yoke/policy/capabilities";
 *
 * const broker = createCapabilityBroker({ key: process.env.CAPABILITY_KEY!, clock, ids });
 * const harness = createHarness({ provider, tools, tenantId: "acme", capabilities: { broker, ttlMs: 30_000 } });
 * // Inside a tool: present context.capability.token to the backend, which calls broker.verify(token, use)
 * // and answers with the receipt; return { content, receipt } — the token never reaches the journal.
 * ```
 */
export interface CapabilityOptions {
  readonly broker: CapabilityBrokerV1;
  /** How long each attempt's capability lives, from its dispatch; default the tool's `timeoutMs`. */
  readonly ttlMs?: number;
}

/** Validates the `capabilities` option. Throws CONFIG_INVALID. */
export function resolveCapabilities(option: CapabilityOptions | undefined): CapabilityOptions | undefined {
  if (option === undefined) return undefined;
  const broker = option?.broker;
  if (broker?.specificationVersion !== "v1" || typeof broker.mint !== "function" || typeof broker.revoke !== "function") {
    throw new YokeError("CONFIG_INVALID", "createHarness: capabilities.broker must implement CapabilityBrokerV1", { details: { option: "capabilities" } });
  }
  if (option.ttlMs !== undefined && (!Number.isInteger(option.ttlMs) || option.ttlMs < 1)) {
    throw new YokeError("CONFIG_INVALID", "createHarness: capabilities.ttlMs must be a positive integer", { details: { option: "capabilities" } });
  }
  return option;
}

/**
 * The scope one attempt's capability gets: the run's tenant, the resource and verb of the
 * tool's policy facts for this input (`tool:<name>` and the tool's name by default), the
 * action, and an expiry `ttl` after now. Facts that cannot be had (the tool's `policy`
 * throws) fall back to the defaults: the capability then covers only the tool itself.
 */
export function mintFor(options: CapabilityOptions, tenantId: string, clock: Clock, item: DispatchItem): Capability {
  const facts = policyFacts(item.tool, item.input);
  return options.broker.mint({
    tenantId,
    resource: facts.resource ?? `tool:${item.tool.name}`,
    verbs: [facts.verb ?? item.tool.name],
    actionId: item.actionId,
    expiresAt: Math.floor(clock.now()) + (options.ttlMs ?? item.tool.timeoutMs),
  });
}

function policyFacts(tool: AnyToolDeclaration, input: unknown): { resource?: string | undefined; verb?: string | undefined } {
  if (tool.policy === undefined) return {};
  try {
    const facts = tool.policy(input);
    return {
      resource: typeof facts?.resource === "string" && facts.resource !== "" ? facts.resource : undefined,
      verb: typeof facts?.verb === "string" && facts.verb !== "" ? facts.verb : undefined,
    };
  } catch {
    return {};
  }
}
