// The chain hash formula documented in this package's README ("The chain: the hash formula,
// for a store of your own") is the store's: the README's reference code, extracted and run
// as is (node:crypto only), recomputes every hash of real journals — the historical SQLite
// fixture, a fresh SQLite journal with awkward data, and a keyed chain. Editing the formula
// on either side without the other fails here.
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { JournalEvent, JournalKey, JournalV1, RunScope } from "@yoke/protocol";
import { eventDraft, runStartedDraft } from "@yoke/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDirectory } from "./__fixtures__/temp-files.js";
import { testKeyMaterial, testKeys } from "./__fixtures__/test-keys.js";
import { createSqliteJournal } from "./sqlite-journal.js";

interface Formula {
  readonly GENESIS_HASH: string;
  eventHash(event: Omit<JournalEvent, "hash">, key?: JournalKey): string;
}

const directory = tempDirectory("yoke-chain-formula-");
let formula: Formula;

beforeAll(async () => {
  const readme = readFileSync(join(import.meta.dirname, "..", "README.md"), "utf8");
  const block = /<!-- chain-formula:start -->\s*```js\n([\s\S]*?)```\s*<!-- chain-formula:end -->/.exec(readme);
  expect(block, "the README's chain-formula block").not.toBeNull();
  const module = join(directory.path, "chain-formula.mjs");
  writeFileSync(module, block![1]!);
  formula = (await import(pathToFileURL(module).href)) as Formula;
});
afterAll(() => directory.remove());

async function readAll(journal: JournalV1, scope: RunScope): Promise<JournalEvent[]> {
  const events: JournalEvent[] = [];
  for await (const event of journal.read(scope)) events.push(event);
  return events;
}

function expectChain(events: readonly JournalEvent[], keyOf?: (keyId: string) => JournalKey): void {
  expect(events.length).toBeGreaterThan(0);
  let prevHash = formula.GENESIS_HASH;
  for (const event of events) {
    const { hash, ...rest } = event;
    expect(rest.prevHash, `seq ${event.seq} prevHash`).toBe(prevHash);
    const keyId = keyOf === undefined ? undefined : /^hmac-sha256:([^:]+):/.exec(hash)?.[1];
    expect(formula.eventHash(rest, keyId === undefined ? undefined : keyOf!(keyId)), `seq ${event.seq} hash`).toBe(hash);
    prevHash = hash;
  }
}

describe("the README's chain formula", () => {
  it("recomputes the historical SQLite fixture's chains, head included", async () => {
    const filename = directory.file("sqlite-v1.db");
    copyFileSync(join(import.meta.dirname, "__fixtures__", "journal", "sqlite-v1.db"), filename);
    const journal = await createSqliteJournal({ filename, headWitness: "none" });
    try {
      const events = await readAll(journal, { tenantId: "tenant_fixture", runId: "run_fixture_1" });
      expectChain(events);
      expect(events.at(-1)!.hash).toBe((await journal.head({ tenantId: "tenant_fixture", runId: "run_fixture_1" }))!.hash);
      expectChain(await readAll(journal, { tenantId: "tenant_other", runId: "run_fixture_1" }));
    } finally {
      await journal.close();
    }
  });

  it("recomputes a fresh journal with awkward data: unicode keys and text, nesting, -0, null, causation ids", async () => {
    const journal = await createSqliteJournal({ filename: directory.file("fresh.db") });
    const scope = { tenantId: "tenant_ü", runId: "run_1" };
    try {
      await journal.append(scope, 0, [runStartedDraft()]);
      await journal.append(scope, 1, [
        eventDraft("test.noted", { z: 1, a: [1.5, -0, 1e21, null, true], é: "naïve ☃ 𝄞", B: { y: { x: '\u2028\n"' } }, "10": 2, "9": 3 }),
        eventDraft("test.noted", { empty: {}, list: [] }, { causationId: "event_0" }),
      ]);
      expectChain(await readAll(journal, scope));
    } finally {
      await journal.close();
    }
  });

  it("recomputes a keyed chain (HMAC-SHA256 under the tenant's key)", async () => {
    const keys = testKeys("k1");
    const journal = await createSqliteJournal({ filename: directory.file("keyed.db"), keys: keys.provider });
    const scope = { tenantId: "tenant_a", runId: "run_1" };
    try {
      await journal.append(scope, 0, [runStartedDraft(), eventDraft("test.noted", { index: 1 })]);
      const events = await readAll(journal, scope);
      expect(events[0]!.hash.startsWith("hmac-sha256:k1:")).toBe(true);
      expectChain(events, (keyId) => ({ keyId, key: testKeyMaterial(scope.tenantId, keyId) }));
    } finally {
      await journal.close();
    }
  });
});
