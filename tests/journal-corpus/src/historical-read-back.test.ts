// Every journal of the historical corpus, read back on every CI run with today's code: each
// line parses with today's protocol, each stream re-chains to the recorded hashes and ends at
// the head meta.json recorded, both files hash as MANIFEST.json says, and each stream folds.
import { describe, expect, it } from "vitest";
import { corpusFiles, historicalEntries, readHistorical, readManifest, readMeta } from "./historical-corpus.js";
import { SCENARIOS } from "./scenarios.js";
import { WIRE_SCENARIO } from "./wire-scenario.js";

const entries = historicalEntries();
const manifest = readManifest();
/** The scenarios a replay can build a harness from, by the name a meta.json gives. */
const scenarioNames = new Set([...SCENARIOS.map((scenario) => scenario.name), WIRE_SCENARIO]);

describe("the historical corpus reads back with today's code", () => {
  it("holds a journal.jsonl and a meta.json in every directory, and the manifest lists exactly the corpus's files", () => {
    expect(entries.length).toBeGreaterThan(0);
    const expected = entries.flatMap((entry) => [`${entry.id}/journal.jsonl`, `${entry.id}/meta.json`]).sort();
    expect(corpusFiles()).toEqual(expected);
    expect(Object.keys(manifest).sort()).toEqual(expected);
  });

  for (const entry of entries) {
    it(`${entry.id}: parses, re-chains to the recorded heads, matches the manifest and folds`, () => {
      const { meta, streams, folds } = readHistorical(entry, manifest);
      expect(meta.scenario === null ? meta.legacy : meta.scenario).toBeTruthy();
      if (meta.scenario !== null) {
        expect(meta.scenario).toBe(entry.name);
        expect(scenarioNames.has(meta.scenario), `meta.json names scenario ${meta.scenario}, which src/scenarios.ts does not register`).toBe(true);
      }
      expect([...streams.values()].reduce((sum, events) => sum + events.length, 0)).toBe(meta.events);
      expect(folds.size).toBe(meta.streams.length);
      expect(readMeta(entry).eventSchemaVersion).toBe(Math.max(...[...streams.values()].flat().map((event) => event.schemaVersion)));
    });
  }
});
