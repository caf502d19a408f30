import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { YokeError } from "@yoke/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { defaultJournalLocation, openStore } from "./open-store.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function notInitialized(location: string): Promise<YokeError<"JOURNAL_NOT_INITIALIZED">> {
  try {
    await openStore(location);
  } catch (error) {
    if (YokeError.hasCode(error, "JOURNAL_NOT_INITIALIZED")) return error;
    throw error;
  }
  throw new Error("expected JOURNAL_NOT_INITIALIZED");
}

describe("openStore: the default journal name", () => {
  it("defaults to ./yoke.sqlite, the name the runtime's examples use", () => {
    expect(defaultJournalLocation({})).toBe("yoke.sqlite");
    expect(defaultJournalLocation({ YOKE_JOURNAL: "runs.sqlite" })).toBe("runs.sqlite");
  });

  it("a missing yoke.sqlite beside a yoke.db says to pass --journal yoke.db", async () => {
    const dir = mkdtempSync(join(tmpdir(), "yoke-store-"));
    dirs.push(dir);
    writeFileSync(join(dir, "yoke.db"), "");
    const error = await notInitialized(join(dir, "yoke.sqlite"));
    expect(error.message).toContain(`but ${join(dir, "yoke.db")} exists`);
    expect(error.message).toContain(`pass --journal ${join(dir, "yoke.db")}`);
  });

  it("a missing journal with no yoke.db beside it keeps the plain message", async () => {
    const dir = mkdtempSync(join(tmpdir(), "yoke-store-"));
    dirs.push(dir);
    const error = await notInitialized(join(dir, "yoke.sqlite"));
    expect(error.message).toBe(`no journal at ${join(dir, "yoke.sqlite")} (pass --journal <file>, or set YOKE_JOURNAL)`);
  });
});
