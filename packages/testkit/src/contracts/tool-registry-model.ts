import type { ReadmissionRule, ToolLifecycle, ToolRegistryV1, ToolSnapshot } from "@yoke/protocol";
import fc from "fast-check";
import { expect } from "vitest";
import { CONTRACT_ORIGIN, contractListing, contractTool } from "./tool-registry-fixtures.js";
import { createStaticToolSource, type StaticToolSource } from "./tool-registry-source.js";

/*
 * A model-based test of a registry's lifecycle and drift state machine. The reference model
 * keeps, per tool name, the variant (description) live now and its lifecycle, and each pinned
 * snapshot as the variants it held; every command is checked against it. Local and remote
 * tools have disjoint names, so no registration conflicts.
 */

const LOCAL = ["l1", "l2"] as const;
const REMOTE = ["r1", "r2", "r3"] as const;
const ALL = [...LOCAL, ...REMOTE];

interface Pinned {
  readonly name: string;
  readonly variant: number;
  readonly remote: boolean;
}

interface Model {
  readonly local: Map<string, number>;
  remote: Map<string, number>;
  readonly lifecycle: Map<string, ToolLifecycle>;
  readonly ever: Set<string>;
  readonly pins: Pinned[][];
}

interface Real {
  readonly registry: ToolRegistryV1;
  readonly source: StaticToolSource;
  readonly pins: ToolSnapshot[];
}

const lifecycleIn = (model: Model, name: string): ToolLifecycle => model.lifecycle.get(name) ?? "active";
const sorted = (names: Iterable<string>) => [...names].sort();

class RegisterLocal implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly name: string,
    readonly variant: number,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    real.registry.register(contractTool(this.name, { variant: this.variant }));
    model.local.set(this.name, this.variant);
    model.ever.add(this.name);
  }
  toString = () => `register(${this.name} v${this.variant})`;
}

class SetListing implements fc.AsyncCommand<Model, Real> {
  constructor(readonly listing: readonly (readonly [string, number])[]) {}
  check = () => true;
  async run(model: Model, real: Real) {
    real.source.setTools(this.listing.map(([name, variant]) => contractListing(name, variant)));
    model.remote = new Map(this.listing);
    for (const [name] of this.listing) model.ever.add(name);
  }
  toString = () => `list(${this.listing.map(([name, variant]) => `${name} v${variant}`).join(", ")})`;
}

class SetLifecycle implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly name: string,
    readonly lifecycle: ToolLifecycle,
  ) {}
  check = (model: Readonly<Model>) => model.ever.has(this.name);
  async run(model: Model, real: Real) {
    real.registry.setLifecycle(this.name, this.lifecycle, `model: ${this.lifecycle}`);
    model.lifecycle.set(this.name, this.lifecycle);
  }
  toString = () => `setLifecycle(${this.name}, ${this.lifecycle})`;
}

class Pin implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(model: Model, real: Real) {
    // snapshot() is synchronous: it shows what the re-lists finished so far. A run pins a
    // settled registry here; a resolve right after a listing change (no pin between) is what
    // checks that resolve waits for the pending re-list.
    await real.registry.refresh();
    const snapshot = real.registry.snapshot();
    const expected: Pinned[] = [
      ...[...model.local].map(([name, variant]) => ({ name, variant, remote: false })),
      ...[...model.remote].map(([name, variant]) => ({ name, variant, remote: true })),
    ]
      .filter((entry) => lifecycleIn(model, entry.name) === "active")
      .sort((a, b) => (a.name < b.name ? -1 : 1));
    expect(snapshot.revisions.map((revision) => revision.name)).toEqual(expected.map((entry) => entry.name));
    for (const [index, entry] of expected.entries()) expect(snapshot.revisions[index]?.spec.description).toContain(`version ${entry.variant}.`);
    model.pins.push(expected);
    real.pins.push(snapshot);
  }
  toString = () => "pin()";
}

class Resolve implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly pin: number,
    readonly entry: number,
  ) {}
  check = (model: Readonly<Model>) => model.pins.some((pin) => pin.length > 0);
  async run(model: Model, real: Real) {
    const nonEmpty = model.pins.map((pin, index) => [pin, index] as const).filter(([pin]) => pin.length > 0);
    const [pin, index] = nonEmpty[this.pin % nonEmpty.length]!;
    const entry = pin[this.entry % pin.length]!;
    const record = real.pins[index]!.revisions.find((revision) => revision.name === entry.name)!;
    const resolution = await real.registry.resolve(record);
    if (lifecycleIn(model, entry.name) === "withdrawn") {
      expect(resolution.status).toBe("withdrawn");
      return;
    }
    const live = (entry.remote ? model.remote : model.local).get(entry.name);
    if (live === entry.variant) {
      expect(resolution.status).toBe("callable");
      if (resolution.status === "callable") expect(resolution.revision.digest).toBe(record.digest);
      return;
    }
    expect(resolution.status).toBe("drifted");
    if (resolution.status !== "drifted") return;
    expect(resolution.drift.pinned).toBe(record.digest);
    if (live !== undefined) {
      expect(resolution.drift.changes).toEqual(["description"]);
      return;
    }
    const renamedTo = sorted(model.remote.keys()).find((name) => model.remote.get(name) === entry.variant && lifecycleIn(model, name) !== "withdrawn");
    if (renamedTo === undefined) {
      expect(resolution.drift).toMatchObject({ changes: ["removed"], offered: null });
    } else {
      expect(resolution.drift.changes).toEqual(["renamed"]);
      expect(model.remote.get(resolution.drift.renamedTo ?? "")).toBe(entry.variant);
    }
  }
  toString = () => `resolve(pin ${this.pin}, entry ${this.entry})`;
}

class Discover implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pin: number) {}
  check = (model: Readonly<Model>) => model.pins.length > 0;
  async run(model: Model, real: Real) {
    const index = this.pin % model.pins.length;
    const offered = real.registry.discover(real.pins[index]!, { principal: "model", task: "model" });
    const expected = model.pins[index]!.filter((entry) => lifecycleIn(model, entry.name) !== "withdrawn").map((entry) => entry.name);
    expect(offered.revisions.map((revision) => revision.name)).toEqual(expected);
  }
  toString = () => `discover(pin ${this.pin})`;
}

const variant = fc.integer({ min: 0, max: 2 });
const commands = [
  fc.tuple(fc.constantFrom(...LOCAL), variant).map(([name, v]) => new RegisterLocal(name, v)),
  fc.uniqueArray(fc.tuple(fc.constantFrom(...REMOTE), variant), { selector: ([name]) => name, maxLength: 3 }).map((listing) => new SetListing(listing)),
  fc
    .tuple(fc.constantFrom(...ALL), fc.constantFrom<ToolLifecycle>("active", "deprecated", "withdrawn"))
    .map(([name, lifecycle]) => new SetLifecycle(name, lifecycle)),
  fc.constant(new Pin()),
  // Resolutions are what the test is about: drawn three times as often.
  fc.tuple(fc.nat(9), fc.nat(9)).map(([pin, entry]) => new Resolve(pin, entry)),
  fc.tuple(fc.nat(9), fc.nat(9)).map(([pin, entry]) => new Resolve(pin, entry)),
  fc.tuple(fc.nat(9), fc.nat(9)).map(([pin, entry]) => new Resolve(pin, entry)),
  fc.nat(9).map((pin) => new Discover(pin)),
];

/** Runs the model-based test against fresh registries from `fresh`. */
export async function registryModelTest(fresh: (readmission?: readonly ReadmissionRule[]) => Promise<ToolRegistryV1>, numRuns: number): Promise<void> {
  await fc.assert(
    fc.asyncProperty(fc.commands(commands, { maxCommands: 40, size: "large" }), async (sequence) => {
      const registry = await fresh();
      const source = createStaticToolSource({ origin: CONTRACT_ORIGIN, tools: [] });
      await registry.addSource(source, { trustDomain: "third-party" });
      const setup = () => ({
        model: { local: new Map(), remote: new Map(), lifecycle: new Map(), ever: new Set<string>(), pins: [] } as Model,
        real: { registry, source, pins: [] as ToolSnapshot[] },
      });
      await fc.asyncModelRun(setup, sequence);
    }),
    { numRuns },
  );
}
