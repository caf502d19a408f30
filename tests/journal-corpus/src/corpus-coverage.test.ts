// The historical corpus holds every event type the protocol defines and every outcome status
// at least once: a new event type or outcome ships with a journal that shows it.
import { YOKE_EVENT_TYPES } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { OUTCOME_STATUSES, coverageOf, uncovered } from "./corpus-coverage.js";
import { historicalEntries, readHistorical, readManifest } from "./historical-corpus.js";

const manifest = readManifest();
const events = historicalEntries().flatMap((entry) => [...readHistorical(entry, manifest).streams.values()].flat());
const coverage = coverageOf(events);

describe("the historical corpus covers the protocol", () => {
  it("holds every event type the protocol defines, and no other", () => {
    expect(uncovered(coverage, YOKE_EVENT_TYPES, []), "event types without a historical journal").toEqual([]);
    expect([...coverage.eventTypes].filter((type) => !(YOKE_EVENT_TYPES as readonly string[]).includes(type))).toEqual([]);
  });

  it("ends runs with every outcome status of the closed set", () => {
    expect(OUTCOME_STATUSES).toContain("verified_success");
    expect(uncovered(coverage, [], OUTCOME_STATUSES), "outcomes without a historical run").toEqual([]);
  });

  it("names what to add for an event type or outcome the corpus lacks", () => {
    const full = { eventTypes: new Set<string>(YOKE_EVENT_TYPES), outcomes: new Set(OUTCOME_STATUSES) };
    expect(uncovered(full)).toEqual([]);
    const lacking = uncovered(full, [...YOKE_EVENT_TYPES, "tool.teleported"], [...OUTCOME_STATUSES, "abandoned"]);
    expect(lacking).toHaveLength(2);
    expect(lacking[0]).toMatch(/^event type "tool\.teleported" is in no historical journal: add a golden scenario .*historical\/<release-dir>/);
    expect(lacking[1]).toMatch(/^outcome "abandoned" ends no historical run: add a golden scenario/);
  });
});
