import { mkdtempSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { type JournalV1, YokeError } from "@yoke/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open-store.js";
import { startViewer, VIEWER_CSP } from "../../src/viewer/index.js";
import { PLANTED_RUN, PLANTED_TENANT, writePlantedRun } from "./planted-run.js";

let dir: string;
let journal: JournalV1;
let viewer: { url: string; close(): Promise<void> };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "yoke-viewer-server-"));
  journal = await openStore(await writePlantedRun(dir));
  viewer = await startViewer({ journal });
});
afterAll(async () => {
  await viewer?.close();
  await journal?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}
function call(url: string, method: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}
function connects(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

describe("viewer server", () => {
  it("listens on 127.0.0.1 and nowhere else", async () => {
    const url = new URL(viewer.url);
    expect(url.hostname).toBe("127.0.0.1");
    const port = Number(url.port);
    expect(await connects("127.0.0.1", port)).toBe(true);
    // Another loopback address and every non-loopback interface of this machine are refused:
    // a server bound to 0.0.0.0 (or ::) would answer them.
    expect(await connects("127.0.0.2", port)).toBe(false);
    const others = Object.values(networkInterfaces())
      .flat()
      .filter((address) => address !== undefined && !address.internal && address.family === "IPv4")
      .map((address) => address!.address);
    for (const address of others) expect(await connects(address, port)).toBe(false);
  });

  it("refuses any host but 127.0.0.1 with a typed error", async () => {
    for (const host of ["0.0.0.0", "::", "localhost", "192.168.1.10"]) {
      const error = await startViewer({ journal, host }).catch((caught: unknown) => caught);
      expect(YokeError.hasCode(error, "CONFIG_INVALID"), host).toBe(true);
      expect((error as YokeError).details).toMatchObject({ option: "host", host });
    }
  });

  it("answers GET only: every other method is 405 and changes nothing", async () => {
    for (const method of ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"]) {
      const answer = await call(`${viewer.url}api/runs`, method, { "content-type": "application/json" }, "{}");
      expect(answer.status, method).toBe(405);
      expect(answer.headers.allow).toBe("GET, HEAD");
      expect(JSON.parse(answer.body)).toMatchObject({ error: { code: "METHOD_NOT_ALLOWED" } });
    }
    const runs = JSON.parse((await call(`${viewer.url}api/runs`, "GET")).body) as { runs: { runId: string }[] };
    expect(runs.runs.map((run) => run.runId)).toContain(PLANTED_RUN);
  });

  it("serves the page with a strict CSP and its script as a separate file", async () => {
    const page = await call(viewer.url, "GET");
    expect(page.status).toBe(200);
    expect(page.headers["content-security-policy"]).toBe(VIEWER_CSP);
    expect(VIEWER_CSP).toContain("script-src 'self'");
    expect(VIEWER_CSP).not.toContain("unsafe-inline");
    expect(page.headers["x-content-type-options"]).toBe("nosniff");
    expect(page.body).toContain('<script src="/viewer.js" defer></script>');
    expect(page.body).not.toMatch(/<script>(?!<\/script>)|<script [^>]*>[^<]/);
    const script = await call(`${viewer.url}viewer.js`, "GET");
    expect(script.status).toBe(200);
    expect(script.headers["content-type"]).toMatch(/^text\/javascript/);
    expect(script.body).not.toContain("innerHTML");
    expect(script.body).not.toContain("insertAdjacentHTML");
    expect(script.body).not.toContain("document.write");
  });

  it("answers requests addressed to 127.0.0.1 or localhost only (DNS rebinding)", async () => {
    expect((await call(`${viewer.url}api/runs`, "GET", { host: "attacker.example:80" })).status).toBe(421);
    expect((await call(`${viewer.url}api/runs`, "GET", { host: `localhost:${new URL(viewer.url).port}` })).status).toBe(200);
  });

  it("serves one run and its raw events page by page, and 404s an unknown run", async () => {
    const base = `${viewer.url}api/runs/${PLANTED_TENANT}/${PLANTED_RUN}`;
    const run = JSON.parse((await call(base, "GET")).body) as {
      inspected: number;
      view: { chain: { ok: boolean }; header: { events: number }; timeline?: unknown };
    };
    expect(run.view.chain).toMatchObject({ checked: true, ok: true });
    expect(run.inspected).toBe(run.view.header.events);
    expect(run.view.timeline).toBeUndefined(); // paged with the raw events instead
    const page = JSON.parse((await call(`${base}/events?from=2&limit=3`, "GET")).body) as { total: number; events: { seq: number; summary: string }[] };
    expect(page.total).toBe(run.inspected);
    expect(page.events.map((event) => event.seq)).toEqual([2, 3, 4]);
    expect(page.events.every((event) => typeof event.summary === "string")).toBe(true);
    // The run comes with its turns as an index; turns in full, with their actions, a page at a time.
    const index = (run.view as unknown as { turns: { index: number; actions: number }[] }).turns;
    const turns = JSON.parse((await call(`${base}/turns?from=1`, "GET")).body) as {
      from: number;
      next: number;
      total: number;
      turns: { index: number; actionIds: string[] }[];
      actions: { actionId: string; toolName: string }[];
    };
    expect(turns).toMatchObject({ from: 1, next: index.length, total: index.length });
    expect(turns.turns.map((turn) => turn.index)).toEqual(index.slice(1).map((turn) => turn.index));
    expect(turns.actions.map((action) => action.actionId)).toEqual(turns.turns.flatMap((turn) => turn.actionIds));
    expect(turns.actions.map((action) => action.toolName)).toEqual(["fetch_page"]);
    const missing = await call(`${viewer.url}api/runs/${PLANTED_TENANT}/run_nope`, "GET");
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body)).toMatchObject({ error: { code: "RUN_NOT_FOUND" } });
  });

  it("points its URL at the run it was asked to open", async () => {
    const opened = await startViewer({ journal, runId: PLANTED_RUN });
    try {
      expect(opened.url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/#/run/${PLANTED_TENANT}/${PLANTED_RUN}$`));
    } finally {
      await opened.close();
    }
    const error = await startViewer({ journal, runId: "run_nope" }).catch((caught: unknown) => caught);
    expect(YokeError.hasCode(error, "RUN_NOT_FOUND")).toBe(true);
  });
});
