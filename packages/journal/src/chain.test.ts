import { GENESIS_HASH, canonicalJson, type EventDraft } from "@yoke/protocol";
import { eventBatchArbitrary } from "@yoke/testkit/arbitraries";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { computeEventHash, sealDrafts, sealEvents } from "./chain.js";

describe("sealing", () => {
  it("hashes exactly what computeEventHash hashes, and stores canonical data", () => {
    const scopeArbitrary = fc.record({ tenantId: fc.string({ unit: "binary" }), runId: fc.string({ unit: "binary" }) });
    fc.assert(
      fc.property(scopeArbitrary, eventBatchArbitrary({ startsRun: true, maxLength: 5 }), (scope, drafts: EventDraft[]) => {
        const sealed = sealDrafts(scope, { length: 0, hash: GENESIS_HASH }, drafts);
        let prevHash = GENESIS_HASH;
        for (const { event, canonicalData } of sealed) {
          const { hash, ...unsealed } = event;
          expect(event.prevHash).toBe(prevHash);
          expect(hash).toBe(computeEventHash(unsealed));
          expect(canonicalData).toBe(canonicalJson(event.data));
          prevHash = hash;
        }
        expect(sealEvents(scope, { length: 0, hash: GENESIS_HASH }, drafts)).toEqual(sealed.map(({ event }) => event));
      }),
      { numRuns: 200 },
    );
  });
});
