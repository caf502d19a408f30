// The viewer pages large payloads: over real HTTP on 127.0.0.1, no API response carries more
// than MAX_RESPONSE_BYTES (1 MiB), paging through the raw log visits every event exactly once,
// and an event too large for one response is read whole in slices (byte for byte its canonical
// JSON). The run is a real harness run on a journal that allows large events (64 MiB): a 2 MB
// task, tool outputs of 200 KB, and a 3 MB final answer, full of characters JSON escapes.
import { mkdtempSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteJournal } from "@yoke/journal";
import { canonicalJson, type JournalEvent, type JournalV1 } from "@yoke/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open-store.js";
import { startViewer } from "../../src/viewer/index.js";
import { completedDrafts } from "../support/hostile.ts";
import { launchChromium } from "./chromium.js";
import { removeJournals } from "../support/journals.ts";

const MAX_RESPONSE_BYTES = 1024 * 1024;
const TENANT = "tenant_pages";
const RUN = "run_pages";
// \u0001 takes 6 bytes in JSON (\u0001), a quote 2, the emoji 4 in UTF-8: slices must hold their bound whatever the text.
const NOISY = '\u0001"😀é\\';
const TASK = `Summarize: ${NOISY.repeat(400_000)}`;
const ANSWER = `Done. ${NOISY.repeat(600_000)}`;

let dir: string;
let journal: JournalV1;
let events: JournalEvent[];
let origin: string;
let viewer: { url: string; close(): Promise<void> };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "yoke-viewer-paging-"));
  const writer = await createSqliteJournal({ filename: join(dir, "pages.sqlite"), maxEventBytes: 64 * 1024 * 1024 });
  const drafts = await completedDrafts((text, key) => {
    if (key === "task") return TASK;
    if (text.startsWith("summary.md lists the three todo items")) return ANSWER;
    return key === "text" ? `${text} ${NOISY.repeat(40_000)}` : text;
  });
  const { events: appended } = await writer.append({ tenantId: TENANT, runId: RUN }, 0, drafts);
  events = [...appended];
  await writer.close();
  journal = await openStore(join(dir, "pages.sqlite"));
  viewer = await startViewer({ journal });
  origin = new URL(viewer.url).origin;
}, 240_000);
afterAll(async () => {
  await viewer?.close();
  await journal?.close();
  removeJournals();
  rmSync(dir, { recursive: true, force: true });
});

/** GET over HTTP; the body's size is checked against the bound for every answer. */
async function get(path: string): Promise<{ status: number; body: unknown; bytes: number }> {
  const answer = await new Promise<{ status: number; length: string | undefined; bytes: Buffer }>((resolve, reject) => {
    httpRequest(`${origin}${path}`, { method: "GET" }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, length: response.headers["content-length"], bytes: Buffer.concat(chunks) }));
    })
      .on("error", reject)
      .end();
  });
  expect(answer.bytes.length, path).toBeLessThanOrEqual(MAX_RESPONSE_BYTES);
  expect(Number(answer.length), path).toBe(answer.bytes.length);
  return { status: answer.status, body: JSON.parse(answer.bytes.toString("utf8")), bytes: answer.bytes.length };
}

const runPath = `/api/runs/${TENANT}/${RUN}`;

describe("viewer: large payloads come in bounded pages", { timeout: 240_000 }, () => {
  it("the run is larger than several responses: its task, answer and tool outputs", () => {
    const total = events.reduce((sum, event) => sum + Buffer.byteLength(canonicalJson(event)), 0);
    expect(total).toBeGreaterThan(6 * MAX_RESPONSE_BYTES);
    expect(events.some((event) => Buffer.byteLength(canonicalJson(event)) > 3 * MAX_RESPONSE_BYTES)).toBe(true);
  });

  it("the runs list and the run are answered within the bound (long values cut, marked cut)", async () => {
    const runs = await get("/api/runs");
    expect(runs.status, JSON.stringify(runs.body)).toBe(200);
    expect(JSON.stringify(runs.body)).toContain(RUN);
    const run = await get(runPath);
    expect(run.status, JSON.stringify(run.body).slice(0, 300)).toBe(200);
    const payload = run.body as { cut?: boolean; view: { header: { task: string; runId: string }; turns: unknown[] } };
    expect(payload.cut).toBe(true);
    expect(payload.view.header.runId).toBe(RUN);
    expect(TASK.startsWith(payload.view.header.task.replace(/… \[cut: \d+ more characters\]$/, ""))).toBe(true);
    expect(payload.view.turns.length).toBeGreaterThan(4);
  });

  it("paging the raw log with `next` visits every event once, in order; small events come whole", async () => {
    const seen: number[] = [];
    let from = 0;
    let pages = 0;
    for (;;) {
      const page = (await get(`${runPath}/events?from=${from}&limit=500`)).body as {
        next: number;
        total: number;
        events: (JournalEvent & { cut?: { bytes: number } })[];
      };
      pages++;
      expect(page.events.length).toBeGreaterThan(0);
      for (const event of page.events) {
        seen.push(event.seq);
        const stored = events[event.seq]!;
        if (event.cut === undefined) expect({ ...event, summary: undefined }).toEqual({ ...stored, summary: undefined });
        else expect(event.cut.bytes).toBe(Buffer.byteLength(canonicalJson(stored)));
      }
      expect(page.next).toBe(from + page.events.length);
      from = page.next;
      if (from >= page.total) break;
    }
    expect(seen).toEqual(events.map((event) => event.seq));
    expect(pages).toBeGreaterThan(3);
  });

  it("an event too large for a response is read whole in slices: the concatenation is its canonical JSON", async () => {
    const large = events.filter((event) => Buffer.byteLength(canonicalJson(event)) > MAX_RESPONSE_BYTES);
    expect(large.length).toBeGreaterThanOrEqual(2);
    for (const event of large) {
      let offset: number | null = 0;
      let text = "";
      let slices = 0;
      while (offset !== null) {
        const slice = (await get(`${runPath}/events/${event.seq}?offset=${offset}`)).body as {
          offset: number;
          next: number | null;
          text: string;
          bytes: number;
        };
        expect(slice.offset).toBe(offset);
        text += slice.text;
        offset = slice.next;
        slices++;
      }
      expect(text).toBe(canonicalJson(event));
      expect(slices).toBeGreaterThan(1);
    }
    expect((await get(`${runPath}/events/${events.length}`)).status).toBe(404);
  });

  it("turns come in pages within the bound; a turn too large alone is sent cut", async () => {
    let from = 0;
    let total = 0;
    const indexes: number[] = [];
    let cut = false;
    do {
      const page = (await get(`${runPath}/turns?from=${from}`)).body as { next: number; total: number; turns: { index: number }[]; cut?: boolean };
      indexes.push(...page.turns.map((turn) => turn.index));
      cut ||= page.cut === true;
      expect(page.next).toBeGreaterThan(from);
      from = page.next;
      total = page.total;
    } while (from < total);
    expect(indexes).toEqual(Array.from({ length: total }, (_, index) => index));
    expect(cut).toBe(true);
  });

  it("in chromium: the page goes on from `next`, and reads a cut event whole, as text", async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const large = events.find((event) => Buffer.byteLength(canonicalJson(event)) > MAX_RESPONSE_BYTES)!;
      await page.goto(`${viewer.url}#/run/${TENANT}/${RUN}/events?from=${large.seq}`);
      await page.waitForSelector(`[data-cut-event="${large.seq}"]`);
      const api = (await get(`${runPath}/events?from=${large.seq}&limit=100`)).body as { next: number; total: number };
      const nextHref = await page.evaluate(
        "Array.from(document.querySelectorAll('.pager a')).map((a) => a.getAttribute('href')).find((href) => href.indexOf('from=') >= 0 && !/previous/.test(href))",
      );
      if (api.next < api.total) expect(String(nextHref)).toMatch(new RegExp(`from=${api.next}$`));
      await page.evaluate(`document.querySelectorAll('[data-cut-event="${large.seq}"] details')[1].open = true`);
      // Page through the parts with the page's own buttons; together they are the event's canonical JSON.
      const part = `[data-cut-event="${large.seq}"] pre.event-part`;
      let shown = "";
      for (let parts = 1; ; parts++) {
        await page.waitForSelector(`${part}[data-offset="${Buffer.byteLength(shown, "utf8")}"]`, { timeout: 60_000 });
        shown += (await page.evaluate(`document.querySelector('${part}').textContent`)) as string;
        if ((await page.evaluate(`document.querySelector('${part}').getAttribute('data-last')`)) === "true") {
          expect(parts).toBeGreaterThan(1);
          break;
        }
        await page.click(`[data-cut-event="${large.seq}"] button.part-next`);
      }
      const whole = canonicalJson(large);
      // Compared as facts, not as a diff: a diff of two 6 MB strings would take minutes.
      let differs = 0;
      while (differs < whole.length && shown.charCodeAt(differs) === whole.charCodeAt(differs)) differs++;
      expect({ length: shown.length, firstDifference: differs === whole.length ? null : differs }).toEqual({ length: whole.length, firstDifference: null });
    } finally {
      await browser.close();
    }
  });
});
