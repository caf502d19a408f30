import { runStartedDraft } from "@yoke/testkit";
import { journalContractTests } from "@yoke/testkit/contracts";
import type { RunScope } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { createMemoryJournal } from "./memory-journal.js";

const contract = journalContractTests("memory", () => ({ journal: createMemoryJournal() }));
// A literal describe and it.for, so `vitest list` (a static read of this file) finds the suite.
describe("JournalV1 contract: memory", () => {
  it.for(contract.tests)("$title", (test) => test.run());
});

describe("memory journal", () => {
  it("returns frozen events that cannot be mutated", async () => {
    const journal = createMemoryJournal();
    const scope = { tenantId: "tenant_a", runId: "run_1" };
    const { events } = await journal.append(scope, 0, [runStartedDraft()]);
    const event = events[0] as unknown as { at: number; data: { task: string } };
    expect(() => {
      event.at = 5;
    }).toThrow(TypeError);
    expect(() => {
      event.data.task = "changed";
    }).toThrow(TypeError);
    let read: unknown;
    for await (const stored of journal.read(scope)) read = stored;
    expect(read).toMatchObject({ at: 0, data: { task: "a test task" } });
    expect(Object.isFrozen(read)).toBe(true);
    expect(await journal.verify(scope)).toMatchObject({ ok: true, events: 1 });
  });

  it("refuses ids that are not strings (JOURNAL_INVALID_APPEND), as the SQLite journal does: no run is kept under them", async () => {
    const journal = createMemoryJournal();
    for (const scope of [
      { tenantId: 5, runId: "run_1" },
      { tenantId: "tenant_a", runId: null },
      { tenantId: "tenant_a", runId: ["run_1"] },
    ] as unknown as RunScope[]) {
      await expect(journal.append(scope, 0, [runStartedDraft()])).rejects.toMatchObject({
        code: "JOURNAL_INVALID_APPEND",
        message: "tenantId and runId must be strings",
      });
      await expect(journal.leases.acquire(scope, { ownerId: "worker_1", ttlMs: 1_000 })).rejects.toMatchObject({ code: "JOURNAL_INVALID_APPEND" });
      expect(await journal.head(scope)).toBeNull();
    }
    // "5" is another tenant than 5: nothing was kept under either.
    expect(await journal.head({ tenantId: "5", runId: "run_1" })).toBeNull();
  });

  it("is not durable and single-process", () => {
    expect(createMemoryJournal().capabilities).toEqual({ durable: false, multiProcess: false });
  });
});
