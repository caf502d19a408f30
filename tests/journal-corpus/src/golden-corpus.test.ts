// The golden corpus: each scenario, run on this code, must give back the bytes recorded on the
// code before the loop was reshaped: every journal event (hashes included), every request the
// provider was sent, every harness call's return, the fold of every stream, and what a fresh
// harness appends resuming from each commit boundary (on memory, and on SQLite for some).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { RECORDING, firstDifference, goldenScenarios, readFixture, writeFixture } from "./fixture-files.js";
import { RECORD_FILES, recordScenario } from "./record-scenario.js";
import { SCENARIOS } from "./scenarios.js";
import { removeScratch } from "./scratch.js";
import { WIRE_FILES, WIRE_SCENARIO, recordWire } from "./wire-scenario.js";

const directory = mkdtempSync(join(tmpdir(), "yoke-corpus-"));
afterAll(() => {
  rmSync(directory, { recursive: true, force: true });
  removeScratch();
});

describe("the golden journal corpus", () => {
  it("has one fixture directory per scenario, and no other", () => {
    if (RECORDING) return;
    expect(goldenScenarios()).toEqual([...SCENARIOS.map((scenario) => scenario.name), WIRE_SCENARIO].sort());
  });

  for (const scenario of SCENARIOS) {
    it(`${scenario.name}: ${scenario.about}`, async () => {
      const record = await recordScenario(scenario, { directory });
      for (const file of RECORD_FILES) {
        if (RECORDING) {
          writeFixture(scenario.name, file, record[file]);
          continue;
        }
        const difference = firstDifference(scenario.name, file, readFixture(scenario.name, file), record[file]);
        if (difference !== null) expect.fail(difference);
      }
    }, 180_000);
  }

  it(`${WIRE_SCENARIO}: the bytes of every HTTP request the real Anthropic adapter sent for a tool turn`, async () => {
    const record = await recordWire();
    for (const file of WIRE_FILES) {
      if (RECORDING) {
        writeFixture(WIRE_SCENARIO, file, record[file]);
        continue;
      }
      const difference = firstDifference(WIRE_SCENARIO, file, readFixture(WIRE_SCENARIO, file), record[file]);
      if (difference !== null) expect.fail(difference);
    }
  });
});
