// The committed bytes read back: every recorded journal is canonical JSON, its hash chain is the
// one a store computes from its drafts today (and verifies), and its fold gives the recorded
// digest. This reads only the fixtures: no scenario runs.
import { createMemoryJournal } from "@yoke/journal";
import { JournalEventSchema, canonicalJson, type JournalEvent } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { TENANT } from "./corpus-kit.js";
import { RECORDING, firstDifference, goldenScenarios, readFixture } from "./fixture-files.js";
import { foldLines } from "./record-scenario.js";

function streamsOf(lines: readonly string[]): Map<string, JournalEvent[]> {
  const streams = new Map<string, JournalEvent[]>();
  for (const line of lines) {
    const event = JournalEventSchema.parse(JSON.parse(line));
    const events = streams.get(event.runId) ?? [];
    events.push(event);
    streams.set(event.runId, events);
  }
  return streams;
}

describe.skipIf(RECORDING)("the committed corpus reads back", () => {
  for (const scenario of goldenScenarios()) {
    it(`${scenario}: canonical, chained as a store chains it today, folded to the recorded digest`, async () => {
      const lines = readFixture(scenario, "journal");
      for (const line of lines) expect(canonicalJson(JSON.parse(line))).toBe(line);
      const streams = streamsOf(lines);
      const store = createMemoryJournal();
      const rechained: string[] = [];
      for (const [runId, events] of streams) {
        const scope = { tenantId: TENANT, runId };
        await store.append(
          scope,
          0,
          events.map(({ type, at, causationId, data }) => ({ type, at, causationId, data })),
        );
        expect(await store.verify(scope)).toMatchObject({ ok: true, events: events.length });
        for await (const event of store.read(scope)) rechained.push(canonicalJson(event));
      }
      const chain = firstDifference(scenario, "journal (re-chained)", lines, rechained);
      if (chain !== null) expect.fail(chain);
      const fold = firstDifference(scenario, "fold", readFixture(scenario, "fold"), foldLines(streams));
      if (fold !== null) expect.fail(fold);
    });
  }
});
