import { YokeError } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { createMemoryEffectLedger } from "../effect-ledger.js";

describe("the memory effect ledger", () => {
  it("counts duplicates, deduplicates, undoes once and scopes tenants like the file ledger", () => {
    const ledger = createMemoryEffectLedger();
    expect(ledger.path).toBe(":memory:");
    ledger.apply({ resource: "card:1", key: "a", value: 10 });
    expect(ledger.apply({ resource: "card:1", key: "b", value: 5, dedupe: true }).duplicate).toBe(false);
    expect(ledger.apply({ resource: "card:1", key: "b", value: 5, dedupe: true }).duplicate).toBe(true);
    expect(ledger.duplicates()).toBe(0);
    ledger.apply({ resource: "card:1", key: "a", value: 10 });
    expect(ledger.duplicates()).toBe(1);
    expect(ledger.undo("b")).toEqual({ undone: true });
    expect(ledger.undo("b")).toEqual({ undone: false });
    expect(ledger.netState()).toEqual({ "card:1": null });
    const tenant = ledger.forTenant("tenant_a");
    tenant.apply({ resource: "card:2", key: "c", value: 1 });
    expect(tenant.entries()).toEqual([{ op: "apply", resource: "card:2", key: "c", value: 1, tenantId: "tenant_a" }]);
    expect(() => ledger.forTenant("tenant_b").undo("c")).toThrow(YokeError);
  });

  it("hands out copies: changing a returned entry changes nothing stored", () => {
    const ledger = createMemoryEffectLedger();
    ledger.apply({ resource: "card:1", key: "a", value: { cents: 10 } });
    const [entry] = ledger.entries();
    (entry as unknown as { value: { cents: number } }).value.cents = 99;
    expect(ledger.netState()).toEqual({ "card:1": { cents: 10 } });
  });
});
