// The corpus replayed: every golden scenario's recorded journal, and every historical journal
// when there are any, re-driven through the current code with recorded model answers and tool
// outcomes, must journal exactly what was recorded: 0 divergences.
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { YokeError } from "@yoke/protocol";
import { type ReplayReport, replay } from "@yoke/runtime";
import { describe, expect, it } from "vitest";
import { GOLDEN, goldenScenarios } from "./fixture-files.js";
import { RUN } from "./corpus-kit.js";
import { loadJournal, readJournalLines, resumedJournals, rootRuns, scenarioOptions } from "./replay-kit.js";
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

/** Every root run of the journal replayed (a session's runs one by one), each through a harness of the scenario's world. */
async function replayed(journalPath: string, scenarioName: string) {
  const streams = readJournalLines(journalPath);
  const journal = await loadJournal(streams);
  const reports = [];
  for (const root of rootRuns(streams)) reports.push(await replay({ journal, ...root }, scenarioOptions(scenarioNamed(scenarioName))));
  return { reports, streams };
}

/** How far the replays went in each stream: the most events of it any replay journaled (a session's stream grows with each of its runs). */
function replayedLengths(reports: readonly ReplayReport[], streams: ReadonlyMap<string, unknown>): Record<string, number | undefined> {
  const lengths = (runId: string) => reports.map((report) => report.streams[runId]).filter((length) => length !== undefined);
  return Object.fromEntries([...streams.keys()].map((runId) => [runId, lengths(runId).length === 0 ? undefined : Math.max(...lengths(runId))]));
}

describe("the corpus replayed through the current code", () => {
  const named = new Set(SCENARIOS.map((scenario) => scenario.name));
  const wire = goldenScenarios().filter((name) => !named.has(name));
  it("covers every golden fixture with a scenario except the wire capture (it records HTTP bytes, not a harness's world)", () => {
    expect(wire).toEqual(["wire-anthropic-tool-turn"]);
  });

  for (const scenario of SCENARIOS) {
    it(`${scenario.name}: 0 divergences`, async () => {
      const { reports, streams } = await replayed(join(GOLDEN, scenario.name, "journal.jsonl"), scenario.name);
      // Every stream of the record (each run, its subagents, its inbox, its session) was replayed event for event.
      expect(replayedLengths(reports, streams)).toEqual(Object.fromEntries([...streams].map(([runId, events]) => [runId, events.length])));
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
        const roots = rootRuns(streams);
        // A cut before the run's first commit (its session recorded it, nothing more): there is no run, and replay says so.
        if (roots.length === 0) {
          const tenantId = [...streams.values()][0]![0]!.tenantId;
          await expect(replay({ journal: loaded, tenantId, runId: RUN }, scenarioOptions(scenario))).rejects.toMatchObject({ code: "RUN_NOT_FOUND" });
        }
        for (const { tenantId, runId } of roots) {
          try {
            const report = await replay({ journal: loaded, tenantId, runId }, scenarioOptions(scenario));
            expect({ prefix, runId, events: report.events }).toEqual({ prefix, runId, events: streams.get(runId)!.length });
          } catch (error) {
            if (!YokeError.hasCode(error, "REPLAY_DIVERGED")) throw error;
            diverged.push({ prefix, message: error.message });
          }
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
      const { reports, streams } = await replayed(join(directory, "journal.jsonl"), scenario);
      expect(reports.map((report) => [report.runId, report.events])).toEqual(reports.map((report) => [report.runId, streams.get(report.runId)!.length]));
      expect(reports.length).toBeGreaterThan(0);
    });
  }
});
