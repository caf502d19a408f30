import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { RELEASE_FIELDS, ReleaseSchema, compareReleases, describeReleaseDifferences, runtimeVersionOf, type Release } from "./release.js";
import { RunStateAccumulator } from "./run-state.js";
import type { JournalEvent } from "./events.js";

const text = fc.string({ minLength: 1, maxLength: 12 });
/** Any release with every field pinned. */
const fullRelease: fc.Arbitrary<Release> = fc.record({
  runtime: text,
  eventSchemaVersion: fc.integer({ min: 1, max: 9 }),
  providers: fc.array(fc.record({ provider: text, modelId: text }), { minLength: 1, maxLength: 2 }),
  compiler: fc.record({ version: text, config: text }),
  tools: text,
  policy: text,
  verifiers: fc.array(fc.record({ id: text, kind: text }), { maxLength: 2 }),
  pricing: fc.record({ id: text, revision: text, currency: text }),
});

/** `release` with `field` changed to a value it cannot already hold. */
function changed(release: Release, field: (typeof RELEASE_FIELDS)[number]): Release {
  const next: Record<string, unknown> = { ...release };
  switch (field) {
    case "eventSchemaVersion":
      next[field] = release.eventSchemaVersion + 1;
      break;
    case "runtime":
    case "tools":
    case "policy":
      next[field] = `${String(release[field])}'`;
      break;
    case "providers":
      next[field] = [...(release.providers ?? []), { provider: "p", modelId: "m" }];
      break;
    case "verifiers":
      next[field] = [...(release.verifiers ?? []), { id: "v", kind: "k" }];
      break;
    case "compiler":
      next[field] = { ...release.compiler, config: `${release.compiler?.config}'` };
      break;
    case "pricing":
      next[field] = { ...release.pricing, revision: `${release.pricing?.revision}'` };
      break;
  }
  return next as Release;
}

describe("compareReleases", () => {
  it("finds no difference between a release and itself", () => {
    fc.assert(
      fc.property(fullRelease, (release) => {
        expect(compareReleases(release, structuredClone(release))).toEqual([]);
      }),
    );
  });

  it("names a difference in any one field, with both values, and nothing else", () => {
    fc.assert(
      fc.property(fullRelease, fc.constantFrom(...RELEASE_FIELDS), (release, field) => {
        const running = changed(release, field);
        expect(compareReleases(release, running)).toEqual([{ field, pinned: release[field], running: running[field] }]);
      }),
    );
  });

  it("does not compare a field the pinned release does not hold (a journal written before it was pinned)", () => {
    const pinned = { runtime: "@yoke/runtime@1.0.0", eventSchemaVersion: 1 };
    expect(compareReleases(pinned, { ...pinned, policy: "abc", tools: "def" })).toEqual([]);
  });

  it("names a pinned field the running release lacks", () => {
    const running = { runtime: "r", eventSchemaVersion: 1 };
    expect(compareReleases({ ...running, policy: "abc" }, running)).toEqual([{ field: "policy", pinned: "abc", running: undefined }]);
    expect(describeReleaseDifferences(compareReleases({ ...running, policy: "abc" }, running))).toBe('policy: pinned "abc", running (none)');
  });
});

describe("runtimeVersionOf", () => {
  it("reads a package version, a bare version, and refuses a label", () => {
    expect(runtimeVersionOf("@yoke/runtime@1.4.2")).toEqual({ name: "@yoke/runtime", major: 1, minor: 4, patch: 2 });
    expect(runtimeVersionOf("2.0.0-rc.1")).toEqual({ name: "", major: 2, minor: 0, patch: 0 });
    expect(runtimeVersionOf("ci-build-17")).toBeUndefined();
  });
});

describe("the release a run is pinned to", () => {
  const envelope = { schemaVersion: 1, tenantId: "t", runId: "run_1", causationId: null, at: 0, prevHash: "0".repeat(64), hash: "0".repeat(64) };
  const started = (release: unknown) =>
    ({ ...envelope, seq: 0, type: "run.started", data: { sessionId: "s", task: "t", tools: [], limits: { maxTurns: 1 }, release } }) as JournalEvent;

  it("is run.started's, then the `to` of release.changed", () => {
    const from = { runtime: "@yoke/runtime@1.0.0", eventSchemaVersion: 1 };
    const to = { runtime: "@yoke/runtime@1.1.0", eventSchemaVersion: 1 };
    const accumulator = new RunStateAccumulator();
    accumulator.apply(started(from));
    expect(accumulator.peek().release).toEqual(from);
    const differences = [{ field: "runtime", pinned: from.runtime, running: to.runtime }];
    accumulator.apply({ ...envelope, seq: 1, type: "release.changed", data: { from, to, differences } } as JournalEvent);
    expect(accumulator.peek().release).toEqual(to);
  });

  it("refuses a malformed release, naming the event", () => {
    expect(() => new RunStateAccumulator().apply(started({ runtime: 3, eventSchemaVersion: 1 }))).toThrow(/run\.started/);
    expect(ReleaseSchema.safeParse({ runtime: "r" }).success).toBe(false);
  });
});
