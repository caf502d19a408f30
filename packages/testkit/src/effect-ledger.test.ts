import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createEffectLedger } from "./effect-ledger.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "yoke-effect-ledger-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

// The crash suites' verdict "no effect happened twice" is `duplicates() === 0`: a ledger that
// stopped counting would pass every one of them, so the count itself is pinned here.
describe("the effect ledger counts duplicated effects", () => {
  it("counts a planted duplicate, once per key however often it repeats, and not an undo or a distinct key", () => {
    const ledger = createEffectLedger(join(dir, "ledger.jsonl"));
    ledger.apply({ resource: "card:1", key: "action-a", value: 10 });
    ledger.apply({ resource: "card:2", key: "action-b", value: 20 });
    ledger.undo("action-b");
    expect(ledger.duplicates()).toBe(0);
    ledger.apply({ resource: "card:1", key: "action-a", value: 10 });
    expect(ledger.duplicates()).toBe(1);
    ledger.apply({ resource: "card:1", key: "action-a", value: 10 });
    expect(ledger.duplicates()).toBe(1);
    ledger.apply({ resource: "card:3", key: "action-c", value: 30 });
    ledger.apply({ resource: "card:3", key: "action-c", value: 30 });
    expect(ledger.duplicates()).toBe(2);
    // A fresh view over the same file (another process after a crash) sees the same count.
    expect(createEffectLedger(ledger.path).duplicates()).toBe(2);
  });

  it("a deduplicating service applies a repeated key once, so nothing is counted", () => {
    const ledger = createEffectLedger(join(dir, "ledger.jsonl"));
    expect(ledger.apply({ resource: "card:1", key: "action-a", value: 10, dedupe: true }).duplicate).toBe(false);
    expect(ledger.apply({ resource: "card:1", key: "action-a", value: 10, dedupe: true }).duplicate).toBe(true);
    expect(ledger.duplicates()).toBe(0);
    expect(ledger.entries()).toHaveLength(1);
  });

  it("a tenant's view counts that tenant's duplicates only", () => {
    const ledger = createEffectLedger(join(dir, "ledger.jsonl"));
    const acme = ledger.forTenant("acme");
    const globex = ledger.forTenant("globex");
    acme.apply({ resource: "card:1", key: "action-a", value: 1 });
    acme.apply({ resource: "card:1", key: "action-a", value: 1 });
    globex.apply({ resource: "card:2", key: "action-g", value: 2 });
    expect([acme.duplicates(), globex.duplicates(), ledger.duplicates()]).toEqual([1, 0, 1]);
  });
});
