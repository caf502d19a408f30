// Time to open a 10,000-event run in the run viewer, in Debian's chromium driven by
// playwright-core (scripts/ensure-chromium.sh installs it): from navigation to the timeline's
// first turns on screen, read in the page as the `yoke:timeline-rendered` performance mark
// (milliseconds since navigation start). Everything on 127.0.0.1: startViewer binds nothing else.
//   cold: a new viewer each round (the run is read, verified and inspected for this load);
//   warm: the same viewer reloaded (its run model cached by head: one head() per load);
//   server: the cold run request alone, from Node (read + verify + inspect of the run, JSON);
//   floor: the same page on a 49-event run (the tests' completed run), warm: what any run costs.
// The run is the CLI tests' large run (a real harness on SQLite, ≥ 10,000 events). Prints one
// JSON line. usage: node viewer-open.ts [rounds]
import { openStore, startViewer } from "@yoke/cli";
import { completedRun, largeRun, removeJournals } from "../packages/cli/test/support/journals.ts";
import { launchChromium } from "../packages/cli/test/viewer/chromium.ts";
import { median } from "./stats.ts";

const rounds = Number(process.argv[2] ?? "5");

const produced = await largeRun();
const small = await completedRun();
const journal = await openStore(produced.file);
const smallJournal = await openStore(small.file);
const browser = await launchChromium();
const runHash = `#/run/${encodeURIComponent(produced.tenantId)}/${encodeURIComponent(produced.runId)}`;

/** One load in a new tab: navigation → first turns rendered (ms, from the page's own clock), and the turns on screen. */
async function load(url: string): Promise<{ ms: number; wallMs: number; rendered: number; turns: number }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const started = performance.now();
  await page.goto(url);
  await page.waitForSelector("#timeline[data-ready=true]", { timeout: 120_000 });
  const wallMs = performance.now() - started;
  const ms = (await page.evaluate("performance.getEntriesByName('yoke:timeline-rendered')[0].startTime")) as number;
  const rendered = Number(await page.locator("#timeline").getAttribute("data-rendered"));
  const turns = Number(await page.locator("#timeline").getAttribute("data-turns"));
  await page.close();
  return { ms, wallMs, rendered, turns };
}

const cold: number[] = [];
const coldWall: number[] = [];
const warm: number[] = [];
const server: number[] = [];
const floor: number[] = [];
let apiBytes = 0;
let rendered = 0;
let turns = 0;
const smallViewer = await startViewer({ journal: smallJournal });
const smallUrl = `${smallViewer.url}#/run/${encodeURIComponent(small.tenantId)}/${encodeURIComponent(small.runId)}`;
await load(smallUrl);
const runApi = (base: string) => `${base}api/runs/${encodeURIComponent(produced.tenantId)}/${encodeURIComponent(produced.runId)}`;
for (let round = 0; round < rounds; round++) {
  const viewer = await startViewer({ journal });
  const other = await startViewer({ journal });
  try {
    const first = await load(`${viewer.url}${runHash}`);
    cold.push(first.ms);
    coldWall.push(first.wallMs);
    rendered = first.rendered;
    turns = first.turns;
    warm.push((await load(`${viewer.url}${runHash}`)).ms);
    const started = performance.now();
    const response = await fetch(runApi(other.url));
    apiBytes = (await response.arrayBuffer()).byteLength;
    server.push(performance.now() - started);
    floor.push((await load(smallUrl)).ms);
  } finally {
    await viewer.close();
    await other.close();
  }
}
await smallViewer.close();
await smallJournal.close();
await browser.close();
await journal.close();
removeJournals();

console.log(
  JSON.stringify({
    events: produced.events,
    turns,
    renderedTurns: rendered,
    rounds,
    apiBytes,
    coldMs: median(cold),
    coldWallMs: median(coldWall),
    warmMs: median(warm),
    serverColdMs: median(server),
    floorMs: median(floor),
    cold,
    warm,
    server,
    floor,
  }),
);
