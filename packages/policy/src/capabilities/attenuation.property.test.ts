import { YokeError, sequentialIdSource, steppingClock, type Capability, type CapabilityScope, type CapabilityUse } from "@yoke/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createCapabilityBroker } from "../capabilities.js";

/**
 * ≥ 100,000 attenuation chains: 10,000 runs, each a random chain of 10–12 attenuations from a
 * root; every child minted ends a distinct chain root → … → child (the count is asserted).
 * Each step first may try a request that widens one dimension (besides narrowing others),
 * which must throw CAPABILITY_ESCALATION, then makes a request that narrows or keeps every
 * dimension, which must succeed. Each child is checked against every ancestor structurally
 * (scope within scope, by a definition written here independently of the broker) and by
 * behaviour: a use the child's token verifies for, its parent's verifies for too.
 */
const RUNS = 10_000;
const VERBS = ["read", "write", "delete", "list", "send"] as const;
const SEGMENTS = ["a", "b", "c"] as const;
const TENANT = "acme";
const START = 1_000;

type Widen = "none" | "resource" | "verb" | "expiry" | "tenant" | "action";

interface Step {
  readonly resource: "keep" | "omit" | "exact" | "prefix";
  readonly segment: number;
  readonly verbMask: number;
  readonly omitVerbs: boolean;
  readonly shorten: number | null;
  readonly setAction: boolean;
  readonly widen: Widen;
  readonly pick: number;
}

const step: fc.Arbitrary<Step> = fc.record({
  resource: fc.constantFrom("keep", "omit", "exact", "prefix"),
  segment: fc.nat({ max: SEGMENTS.length - 1 }),
  verbMask: fc.nat({ max: 31 }),
  omitVerbs: fc.boolean(),
  shorten: fc.option(fc.nat({ max: 5_000 }), { nil: null }),
  setAction: fc.boolean(),
  widen: fc.oneof(
    { arbitrary: fc.constant<Widen>("none"), weight: 10 },
    { arbitrary: fc.constantFrom<Widen>("resource", "verb", "expiry", "tenant", "action"), weight: 5 },
  ),
  pick: fc.nat(),
});

/** The base of a resource pattern: what every resource it names starts with. */
const base = (resource: string) => (resource.endsWith("*") ? resource.slice(0, -1) : resource);

/** A request narrowing (or keeping) every dimension of `parent`, then widening `step.widen`. */
function requestOf(parent: CapabilityScope, s: Step): Partial<CapabilityScope> {
  const request: { -readonly [K in keyof CapabilityScope]?: CapabilityScope[K] } = {};
  const prefix = parent.resource.endsWith("*");
  if (s.resource === "keep") request.resource = parent.resource;
  if (s.resource === "exact") request.resource = prefix ? `${base(parent.resource)}${SEGMENTS[s.segment]}` : parent.resource;
  if (s.resource === "prefix") request.resource = prefix ? `${base(parent.resource)}${SEGMENTS[s.segment]}/*` : parent.resource;
  if (!s.omitVerbs) {
    const kept = parent.verbs.filter((_, index) => (s.verbMask >> index) & 1);
    request.verbs = kept.length > 0 ? kept : [parent.verbs[s.pick % parent.verbs.length]!];
  }
  if (s.shorten !== null) request.expiresAt = parent.expiresAt - s.shorten;
  if (s.setAction) request.actionId = parent.actionId ?? `action_${s.pick % 3}`;
  switch (s.widen) {
    case "resource": {
      // Outside the parent: a shorter prefix, a prefix of an exact resource, or a sibling tree.
      const options = [`${base(parent.resource).slice(0, -1)}*`, `${base(parent.resource)}*`, `other:/${SEGMENTS[s.segment]}`];
      const candidates = options.filter((candidate) => candidate !== parent.resource && !(prefix && base(candidate).startsWith(base(parent.resource))));
      request.resource = candidates[s.pick % candidates.length]!;
      break;
    }
    case "verb": {
      const missing = VERBS.filter((verb) => !parent.verbs.includes(verb));
      const extra = missing.length > 0 ? missing[s.pick % missing.length]! : "admin";
      request.verbs = [...(request.verbs ?? parent.verbs), extra];
      break;
    }
    case "expiry":
      request.expiresAt = parent.expiresAt + 1 + (s.pick % 1_000);
      break;
    case "tenant":
      request.tenantId = "globex";
      break;
    case "action":
      // Once bound, an action is fixed: another id, or unbinding, widens.
      request.actionId = parent.actionId === null ? null : s.pick % 2 === 0 ? null : `${parent.actionId}x`;
      if (parent.actionId === null) request.tenantId = "globex";
      break;
    case "none":
      break;
  }
  return request;
}

/** Structural containment, written from the definition, independently of the broker's code. */
function within(child: CapabilityScope, parent: CapabilityScope): boolean {
  const parentPrefix = parent.resource.endsWith("*");
  const resourceOk = parentPrefix ? base(child.resource).startsWith(base(parent.resource)) : child.resource === parent.resource;
  return (
    child.tenantId === parent.tenantId &&
    resourceOk &&
    child.verbs.length > 0 &&
    child.verbs.every((verb) => parent.verbs.includes(verb)) &&
    child.expiresAt <= parent.expiresAt &&
    (parent.actionId === null || child.actionId === parent.actionId)
  );
}

/** Uses that probe a capability: inside its scope, next to it, and a random verb and action. */
function probes(scope: CapabilityScope, pick: number): CapabilityUse[] {
  const concrete = scope.resource.endsWith("*") ? `${base(scope.resource)}${SEGMENTS[pick % SEGMENTS.length]}` : scope.resource;
  const verb = scope.verbs[pick % scope.verbs.length]!;
  // Alternately a use inside the child's scope and one at its edge (a neighbour resource, any verb, any action).
  return pick % 2 === 0
    ? [{ tenantId: TENANT, resource: concrete, verb, actionId: scope.actionId ?? "action_0" }]
    : [{ tenantId: TENANT, resource: `${concrete}x`, verb: VERBS[pick % VERBS.length]!, actionId: pick % 3 === 0 ? null : "action_1" }];
}

// Plain checks, not `expect`, on the hot path: a million matcher calls would cost more than the broker.
function fail(message: string): never {
  throw new Error(message);
}

describe("capability attenuation (fast-check)", () => {
  it(`over ${RUNS.toLocaleString("en")} runs of 10–12 random requests: no child exceeds any ancestor, and every widening throws CAPABILITY_ESCALATION`, () => {
    let chains = 0;
    let widenings = 0;
    fc.assert(
      fc.property(fc.array(step, { minLength: 10, maxLength: 12 }), fc.nat(), (requests, seed) => {
        const clock = steppingClock(START);
        const broker = createCapabilityBroker({ key: "attenuation-property-key-32-bytes!", clock, ids: sequentialIdSource() });
        const root = broker.mint({ tenantId: TENANT, resource: "res:/*", verbs: [...VERBS], actionId: null, expiresAt: START + 100_000 });
        const lineage: Capability[] = [root];
        for (const [index, s] of requests.entries()) {
          const parent = lineage.at(-1)!;
          if (s.widen !== "none") {
            // First a request that widens one dimension: refused, and the chain stays where it was.
            const request = requestOf(parent.scope, s);
            let error: unknown;
            try {
              broker.attenuate(parent, request);
            } catch (caught) {
              error = caught;
            }
            if (!YokeError.hasCode(error, "CAPABILITY_ESCALATION"))
              fail(`${s.widen} ${JSON.stringify(request)} from ${JSON.stringify(parent.scope)} gave ${String(error)}`);
            widenings++;
          }
          const child = broker.attenuate(parent, requestOf(parent.scope, { ...s, widen: "none" }));
          chains++;
          if (child.parentId !== parent.id) fail(`parent ${child.parentId} is not ${parent.id}`);
          for (const ancestor of lineage) {
            if (!within(child.scope, ancestor.scope)) fail(`${JSON.stringify(child.scope)} exceeds ${JSON.stringify(ancestor.scope)}`);
          }
          // By behaviour: a use the child's token is good for, its parent's is good for too (and so on up, by induction).
          for (const probe of probes(child.scope, seed + index)) {
            if (broker.verify(child.token, probe).ok && !broker.verify(parent.token, probe).ok) fail(`${JSON.stringify(probe)}: child ok, parent refused`);
          }
          lineage.push(child);
        }
      }),
      { numRuns: RUNS },
    );
    process.stdout.write(
      `capability attenuation: ${chains} chains checked against every ancestor, ${widenings} widening requests refused, over ${RUNS} runs\n`,
    );
    expect(chains).toBeGreaterThanOrEqual(100_000);
    expect(widenings).toBeGreaterThan(0);
  }, 120_000);
});
