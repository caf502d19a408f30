// The corpus replayed: every golden scenario's recorded journal, and every historical journal
// when there are any, re-driven through the current code with recorded model answers and tool
// outcomes, must journal exactly what was recorded: 0 divergences.
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { YokeError } from "@yoke/protocol";
import { replay } from "@yoke/runtime";
import { describe, expect, it } from "vitest";
import { GOLDEN, goldenScenarios } from "./fixture-files.js";
import { loadJournal, readJournalLines, resumedJournals, rootRun, scenarioOptions } from "./replay-kit.js";
import { SCENARIOS, scenarioNamed } from "./scenarios.js";

const HISTORICAL = join(import.meta.dirname, "__fixtures__", "historical");

/**
 * Crash points replay does not reproduce yet, pinned so a change either way shows: the process
 * died while a subagent ran, and the process that resumed drew ids for parent and child in an
 * order the record's sorted ids do not give back (one id source, two streams).
 */
const KNOWN_UNREPLAYED: Record<string, number[]> = { subagent: [3, 4, 5, 6, 7, 8] };

/** Every directory under `historical/` holding a `meta.json` and a `journal.jsonl`. */
function historicalJournals(): { directory: string; scenario: string | null }[] {
  if (!existsSync(HISTORICAL)) return [];
  const found: { directory: string; scenario: string | null }[] = [];
  const walk = (directory: string) => {
    for (const entry of readdirSync(directory).sort()) {
      const path = join(directory, entry);
      if (statSync(path).isDirectory()) walk(path);
    }
    if (existsSync(join(directory, "meta.json")) && existsSync(join(directory, "journal.jsonl"))) {
      const meta = JSON.parse(readFileSync(join(directory, "meta.json"), "utf8")) as { scenario?: unknown; legacy?: unknown };
      // A legacy journal (no scenario: hand-written, then resumed) is read back, not replayed; it must say why.
      if (meta.scenario === null && typeof meta.legacy === "string") found.push({ directory, scenario: null });
      else if (typeof meta.scenario === "string") found.push({ directory, scenario: meta.scenario });
      else throw new Error(`${directory}/meta.json names no scenario and gives no legacy reason`);
    }
  };
  walk(HISTORICAL);
  return found;
}

async function replayed(journalPath: string, scenarioName: string) {
  const streams = readJournalLines(journalPath);
  const journal = await loadJournal(streams);
  const { tenantId, runId } = rootRun(streams);
  const report = await replay({ journal, tenantId, runId }, scenarioOptions(scenarioNamed(scenarioName)));
  return { report, streams };
}

describe("the corpus replayed through the current code", () => {
  const named = new Set(SCENARIOS.map((scenario) => scenario.name));
  const wire = goldenScenarios().filter((name) => !named.has(name));
  it("covers every golden fixture with a scenario except the wire capture (it records HTTP bytes, not a harness's world)", () => {
    expect(wire).toEqual(["wire-anthropic-tool-turn"]);
  });

  for (const scenario of SCENARIOS) {
    it(`${scenario.name}: 0 divergences`, async () => {
      const { report, streams } = await replayed(join(GOLDEN, scenario.name, "journal.jsonl"), scenario.name);
      // Every stream of the record (the run, its subagents, its inbox) was replayed event for event.
      const replayedStreams = Object.fromEntries([...streams].map(([runId]) => [runId, report.streams[runId]]));
      expect(replayedStreams).toEqual(Object.fromEntries([...streams].map(([runId, events]) => [runId, events.length])));
    });
  }

  // Each commit boundary of each scenario: the run cut there (its process died) and finished by
  // a fresh harness's resume replays as one run, 0 divergences.
  for (const scenario of SCENARIOS) {
    const journal = readJournalLines(join(GOLDEN, scenario.name, "journal.jsonl"));
    const resumed = resumedJournals(journal, join(GOLDEN, scenario.name, "resumes.jsonl"));
    it(`${scenario.name}: cut at each of its ${resumed.length} commits and resumed, 0 divergences`, async () => {
      const diverged: { prefix: number; message: string }[] = [];
      for (const { prefix, streams } of resumed) {
        const loaded = await loadJournal(streams);
        const { tenantId, runId } = rootRun(streams);
        try {
          const report = await replay({ journal: loaded, tenantId, runId }, scenarioOptions(scenario));
          expect({ prefix, events: report.events }).toEqual({ prefix, events: streams.get(runId)!.length });
        } catch (error) {
          if (!YokeError.hasCode(error, "REPLAY_DIVERGED")) throw error;
          diverged.push({ prefix, message: error.message });
        }
      }
      expect(diverged.filter(({ prefix }) => !(KNOWN_UNREPLAYED[scenario.name] ?? []).includes(prefix))).toEqual([]);
      // A known case that starts to replay is taken off the list.
      expect(diverged.map(({ prefix }) => prefix)).toEqual(KNOWN_UNREPLAYED[scenario.name] ?? []);
    });
  }

  const historical = historicalJournals();
  it("replays every historical journal but the legacy one and the wire capture (no harness world rebuilds them)", () => {
    const skipped = historical.filter(({ scenario }) => scenario === null || !named.has(scenario)).map(({ directory }) => relative(HISTORICAL, directory));
    expect(skipped).toEqual(["schema-1-fa33b6b/legacy-tool-started", "schema-1-fa33b6b/wire-anthropic-tool-turn"]);
  });
  for (const { directory, scenario } of historical) {
    if (scenario === null || !named.has(scenario)) continue;
    it(`historical ${relative(HISTORICAL, directory)} (${scenario}): 0 divergences`, async () => {
      const { report, streams } = await replayed(join(directory, "journal.jsonl"), scenario);
      expect(report.events).toBe(streams.get(report.runId)!.length);
    });
  }
});
