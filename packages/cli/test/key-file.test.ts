// Keyed journals from the command line: `--key-file` or YOKE_JOURNAL_KEY_FILE hands the store
// the keys, so a keyed journal can be listed, shown and verified (in process, through main()).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteJournal } from "@yoke/journal";
import type { JournalKeyProvider, RunScope } from "@yoke/protocol";
import { eventDraft, runStartedDraft } from "@yoke/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../src/main.js";

const scratch = mkdtempSync(join(tmpdir(), "yoke-cli-keys-"));
const journalFile = join(scratch, "keyed.sqlite");
const scope: RunScope = { tenantId: "tenant_k", runId: "run_k" };
const material = Buffer.alloc(32, 0x2a);
const keys: JournalKeyProvider = { keyFor: () => ({ keyId: "2026-12", key: material }) };

async function yoke(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await main(args, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text), isTTY: false, env });
  return { code, stdout, stderr };
}

function keyFile(name: string, content: unknown): string {
  const path = join(scratch, name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content));
  return path;
}

beforeAll(async () => {
  const journal = await createSqliteJournal({ filename: journalFile, keys });
  await journal.append(scope, 0, [runStartedDraft(), eventDraft("test.noted", { index: 1 })]);
  await journal.close();
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("yoke with a keyed journal", () => {
  it("verifies it with --key-file, or with YOKE_JOURNAL_KEY_FILE; without the key the chain is key_required", async () => {
    const good = keyFile("good.json", { keys: [{ keyId: "2026-12", key: material.toString("base64") }] });
    const withFlag = await yoke(["verify", "--journal", journalFile, "--key-file", good]);
    expect(withFlag).toMatchObject({ code: 0, stderr: "" });
    expect(withFlag.stdout).toMatch(/^ok\s+tenant_k run_k: 2 events, head /);
    const withEnv = await yoke(["verify", "--journal", journalFile, "--json"], { YOKE_JOURNAL_KEY_FILE: good });
    expect(withEnv.code).toBe(0);
    expect(JSON.parse(withEnv.stdout).runs).toMatchObject([{ ok: true, events: 2, chain: "hmac-sha256", keyIds: ["2026-12"] }]);
    const without = await yoke(["verify", "--journal", journalFile, "--json"]);
    expect(without.code).toBe(1);
    expect(JSON.parse(without.stdout).runs).toMatchObject([{ ok: false, reason: "key_required" }]);
  });

  it("a key for another tenant, or other material under the key id, does not verify it", async () => {
    const otherTenant = keyFile("other-tenant.json", { keys: [{ tenantId: "tenant_x", keyId: "2026-12", key: material.toString("base64") }] });
    expect(JSON.parse((await yoke(["verify", "--journal", journalFile, "--json", "--key-file", otherTenant])).stdout).runs).toMatchObject([
      { ok: false, reason: "key_mismatch" },
    ]);
    const wrong = keyFile("wrong.json", { keys: [{ keyId: "2026-12", key: Buffer.alloc(32, 1).toString("base64") }] });
    expect(JSON.parse((await yoke(["verify", "--journal", journalFile, "--json", "--key-file", wrong])).stdout).runs).toMatchObject([
      { ok: false, reason: "hash_mismatch" },
    ]);
  });

  it("refuses a missing or malformed key file as a usage error (exit 2) naming it", async () => {
    for (const path of [
      join(scratch, "absent.json"),
      keyFile("not-json.json", "k1=abc"),
      keyFile("no-keys.json", { keys: [] }),
      keyFile("bad-id.json", { keys: [{ keyId: "a b", key: material.toString("base64") }] }),
      keyFile("short.json", { keys: [{ keyId: "k1", key: Buffer.alloc(4).toString("base64") }] }),
      keyFile("not-base64.json", { keys: [{ keyId: "k1", key: "not base64!" }] }),
    ]) {
      const run = await yoke(["verify", "--journal", journalFile, "--key-file", path]);
      expect(run.code, path).toBe(2);
      expect(run.stderr, path).toMatch(/^yoke: CONFIG_INVALID: --key-file /);
      expect(run.stderr).toContain(path);
      expect(run.stdout).toBe("");
    }
  });
});
