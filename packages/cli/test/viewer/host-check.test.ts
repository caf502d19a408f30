// The viewer's DNS-rebinding guard: a page on another origin can point a name it controls at
// 127.0.0.1, so the Host header must name this machine exactly. A prefix or suffix match
// (`startsWith("localhost")`, `startsWith("127.0.0.1")`) lets `localhost.attacker.example` in.
import { mkdtempSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JournalV1 } from "@yoke/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open-store.js";
import { startViewer } from "../../src/viewer/index.js";
import { writePlantedRun } from "./planted-run.js";

let dir: string;
let journal: JournalV1;
let viewer: { url: string; close(): Promise<void> };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "yoke-viewer-host-"));
  journal = await openStore(await writePlantedRun(dir));
  viewer = await startViewer({ journal });
});
afterAll(async () => {
  await viewer?.close();
  await journal?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The status of GET /api/runs sent to the viewer's socket with `host` as the Host header. */
function statusFor(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${viewer.url}api/runs`, { method: "GET", headers: { host } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("viewer Host check", () => {
  it("refuses every name that only starts or ends like a loopback name", async () => {
    const port = new URL(viewer.url).port;
    const hostile = [
      "localhost.attacker.example",
      `localhost.attacker.example:${port}`,
      "localhost.attacker.example.",
      "LOCALHOST.Attacker.Example",
      "localhostattacker.example",
      "localhost-attacker.example",
      "127.0.0.1.attacker.example",
      `127.0.0.1.attacker.example:${port}`,
      "127.0.0.1.nip.io",
      "127.0.0.10",
      "127.0.0.1x",
      "attacker.example.localhost.evil",
      "attacker.localhost",
      "[::1].attacker.example",
      "[::1]x",
      "[::ffff:127.0.0.1]",
      "localhost.",
      "127.0.0.1.",
    ];
    const answered: string[] = [];
    for (const host of hostile) if ((await statusFor(host)) !== 421) answered.push(host);
    expect(answered).toEqual([]);
  });

  it("answers the loopback names themselves, with or without a port, in any case", async () => {
    const port = new URL(viewer.url).port;
    const loopback = ["127.0.0.1", `127.0.0.1:${port}`, "localhost", `LocalHost:${port}`, "[::1]", `[::1]:${port}`];
    const statuses = await Promise.all(loopback.map(statusFor));
    expect(statuses).toEqual(loopback.map(() => 200));
  });
});
