import { runStartedDraft } from "@yoke/testkit";
import { journalContractTests } from "@yoke/testkit/contracts";
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

  it("is not durable and single-process", () => {
    expect(createMemoryJournal().capabilities).toEqual({ durable: false, multiProcess: false });
  });
});
