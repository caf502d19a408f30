// A resume over a tampered SQLite journal: a run left with an irreversible charge in flight,
// then damaged the ways the tamper suite damages files. Every resume fails with a typed
// error before it calls the model or a tool; it never trusts what it cannot prove.
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, truncateSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { computeEventHash, createSqliteJournal, type SqliteJournalOptions } from "@yoke/journal";
import { EVENT_SCHEMA_VERSION, YokeError, canonicalJson, type JournalEvent, type JournalKeyProvider } from "@yoke/protocol";
import { createHarness, defineTool } from "@yoke/runtime";
import { callTools, createScriptedModel, say } from "@yoke/testkit";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";

const root = mkdtempSync(join(tmpdir(), "yoke-tamper-resume-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const scope = { tenantId: "tenant_tamper", runId: "run_tampered" };
const keys: JournalKeyProvider = {
  keyFor: (tenantId) => ({ keyId: "k1", key: createHash("sha256").update(`test key ${tenantId}`).digest() }),
  keyById: (tenantId, keyId) => (keyId === "k1" ? { keyId, key: createHash("sha256").update(`test key ${tenantId}`).digest() } : undefined),
};
let next = 0;

/** Runs until the charge is in flight, then abandons the process's harness (a crash, as far as the file knows). */
async function crashedWithChargeInFlight(options: Partial<SqliteJournalOptions>): Promise<string> {
  const filename = join(root, `journal-${next++}.sqlite`);
  const journal = await createSqliteJournal({ filename, ...options } as SqliteJournalOptions);
  let inFlight!: () => void;
  const started = new Promise<void>((resolve) => (inFlight = resolve));
  const charge = defineTool({
    name: "charge",
    description: "Charges the card.",
    input: z.object({ amount: z.number() }),
    sideEffect: "irreversible",
    execute: () => {
      inFlight();
      return new Promise(() => undefined);
    },
  });
  const harness = createHarness({
    journal,
    provider: createScriptedModel([callTools([{ name: "charge", args: { amount: 42 } }])]),
    tools: [charge],
    tenantId: scope.tenantId,
    lease: false,
  });
  void harness.start("charge once", { runId: scope.runId });
  await started;
  return filename;
}

/** Resumes in a "new process": a fresh journal and harness whose model and tool count their calls. */
async function resume(filename: string, options: Partial<SqliteJournalOptions>) {
  const calls = { model: 0, tool: 0 };
  const model = createScriptedModel([say("done")]);
  const counted = {
    ...model,
    generate: (...args: Parameters<typeof model.generate>) => {
      calls.model += 1;
      return model.generate(...args);
    },
  };
  const charge = defineTool({
    name: "charge",
    description: "Charges the card.",
    input: z.object({ amount: z.number() }),
    sideEffect: "irreversible",
    execute: async () => {
      calls.tool += 1;
      return "charged";
    },
    reconcile: async () => ({ status: "not_applied" }),
  });
  let error: unknown;
  try {
    const journal = await createSqliteJournal({ filename, ...options } as SqliteJournalOptions);
    try {
      await createHarness({ journal, provider: counted, tools: [charge], tenantId: scope.tenantId }).resume(scope.runId);
    } finally {
      await journal.close();
    }
  } catch (caught) {
    error = caught;
  }
  return { error, calls };
}

function rows(filename: string): JournalEvent[] {
  const db = new Database(filename, { readonly: true });
  try {
    return (
      db.prepare("SELECT seq, type, at, data, hash FROM events WHERE run_id = ? ORDER BY seq").all(scope.runId) as {
        seq: number;
        type: string;
        at: number;
        data: string;
        hash: string;
      }[]
    ).map((row) => ({ ...scope, seq: row.seq, type: row.type, at: row.at, data: JSON.parse(row.data), hash: row.hash }) as unknown as JournalEvent);
  } finally {
    db.close();
  }
}

/** Appends `action.committed` for the in-flight attempt, chained with a correct SHA-256: what someone with write access but no key can do. */
function forgeCommitted(filename: string): number {
  const events = rows(filename);
  const admitted = events.find((event) => event.type === "action.admitted")!.data as { actionId: string; attemptId: string };
  const head = events.at(-1)!;
  const data = {
    actionId: admitted.actionId,
    attemptId: admitted.attemptId,
    result: { status: "ok", content: [{ type: "text", text: "charged 42" }], timing: { startedAt: head.at, endedAt: head.at, durationMs: 0 } },
  };
  const envelope = {
    ...scope,
    seq: head.seq + 1,
    type: "action.committed",
    at: head.at,
    causationId: null,
    data,
    prevHash: head.hash,
    schemaVersion: EVENT_SCHEMA_VERSION,
  };
  const db = new Database(filename);
  try {
    db.prepare(
      "INSERT INTO events (tenant_id, run_id, seq, type, at, causation_id, data, prev_hash, hash, schema_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    ).run(
      scope.tenantId,
      scope.runId,
      envelope.seq,
      envelope.type,
      envelope.at,
      null,
      canonicalJson(data),
      envelope.prevHash,
      computeEventHash(envelope),
      EVENT_SCHEMA_VERSION,
    );
  } finally {
    db.close();
  }
  return envelope.seq;
}

function edit(filename: string, sql: string, ...params: unknown[]): void {
  const db = new Database(filename);
  try {
    db.prepare(sql).run(...params);
  } finally {
    db.close();
  }
}

const codeOf = (error: unknown) => (YokeError.isInstance(error) ? error.code : String(error));

describe("resuming a tampered journal", () => {
  it("refuses a journal whose last append was deleted (head witness): JOURNAL_TRUNCATED, nothing re-run", async () => {
    const filename = await crashedWithChargeInFlight({});
    const last = rows(filename).at(-1)!.seq;
    edit(filename, "DELETE FROM events WHERE run_id = ? AND seq = ?", scope.runId, last);
    const { error, calls } = await resume(filename, {});
    expect(codeOf(error)).toBe("JOURNAL_TRUNCATED");
    expect(calls).toEqual({ model: 0, tool: 0 });
  });

  it("refuses a journal truncated to 0 bytes (its witness records events): JOURNAL_TRUNCATED, never a fresh run", async () => {
    const filename = await crashedWithChargeInFlight({});
    edit(filename, "PRAGMA wal_checkpoint(TRUNCATE)");
    rmSync(`${filename}-wal`, { force: true });
    rmSync(`${filename}-shm`, { force: true });
    truncateSync(filename, 0);
    const { error, calls } = await resume(filename, {});
    expect(codeOf(error)).toBe("JOURNAL_TRUNCATED");
    expect(calls).toEqual({ model: 0, tool: 0 });
  });

  it("refuses a forged action.committed in a keyed journal, naming its seq, even without a witness", async () => {
    const options = { keys, headWitness: "none" } as const;
    const filename = await crashedWithChargeInFlight(options);
    const seq = forgeCommitted(filename);
    const { error, calls } = await resume(filename, options);
    expect(codeOf(error)).toBe("JOURNAL_CHAIN_BROKEN");
    expect((error as YokeError).details).toMatchObject({ seq });
    expect(calls).toEqual({ model: 0, tool: 0 });
  });

  it("(why the key is needed) accepts the same forgery in an unkeyed journal without a witness", async () => {
    const options = { headWitness: "none" } as const;
    const filename = await crashedWithChargeInFlight(options);
    forgeCommitted(filename);
    const journal = await createSqliteJournal({ filename, ...options });
    expect(await journal.verify(scope)).toMatchObject({ ok: true, chain: "sha256" });
    await journal.close();
  });

  it("refuses swapped rows: JOURNAL_CHAIN_BROKEN, nothing re-run", async () => {
    const filename = await crashedWithChargeInFlight({});
    const [a, b] = rows(filename).slice(1, 3);
    edit(filename, "UPDATE events SET data = ? WHERE run_id = ? AND seq = ?", canonicalJson(b!.data), scope.runId, a!.seq);
    edit(filename, "UPDATE events SET data = ? WHERE run_id = ? AND seq = ?", canonicalJson(a!.data), scope.runId, b!.seq);
    const { error, calls } = await resume(filename, {});
    expect(["JOURNAL_CHAIN_BROKEN", "JOURNAL_CORRUPT", "JOURNAL_WITNESS_INVALID"]).toContain(codeOf(error));
    expect(calls).toEqual({ model: 0, tool: 0 });
  });
});
