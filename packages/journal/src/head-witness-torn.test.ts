// Torn head-witness lines (a crash or a full disk mid-write) never brick a journal: readers
// skip an unterminated tail, writers cut it off before appending, and a fragment an older
// version glued to the next line is skipped — while damage that is not a tear stays an error.
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import type { RunScope } from "@yoke/protocol";
import { eventDraft, runStartedDraft } from "@yoke/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { tempDirectoryPerTest } from "./__fixtures__/temp-files.js";
import { HeadWitness } from "./head-witness.js";
import { createSqliteJournal } from "./sqlite-journal.js";

const scope: RunScope = { tenantId: "tenant_a", runId: "run_1" };
const directory = tempDirectoryPerTest("yoke-witness-torn-");
const header = JSON.stringify({ format: "yoke-head-witness", version: 1, journalId: "journal-1" });
const lineOf = (tenantId: string, runId: string, length: number, hash: string) => `${JSON.stringify([tenantId, runId, length, hash])}\n`;

async function codeOfOpen(filename: string): Promise<string | undefined> {
  try {
    await (await createSqliteJournal({ filename })).close();
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
}

describe("head witness: torn lines", () => {
  it("an append after a crash cut a witness line cuts the fragment off instead of gluing onto it", async () => {
    const filename = directory.file("journal.db");
    const journal = await createSqliteJournal({ filename });
    await journal.append(scope, 0, [runStartedDraft()]);
    await journal.close();
    appendFileSync(`${filename}-head`, '["tenant_a","run_1",2,"abc');
    const reopened = await createSqliteJournal({ filename });
    const { headHash } = await reopened.append(scope, 1, [eventDraft("test.noted", { index: 1 })]);
    await reopened.close();
    expect(readFileSync(`${filename}-head`, "utf8").split("\n").slice(1)).toEqual([
      expect.stringMatching(/^\["tenant_a","run_1",1,/),
      `["tenant_a","run_1",2,"${headHash}"]`,
      "",
    ]);
    expect(await codeOfOpen(filename)).toBeUndefined();
  });

  it("reads a witness an older version glued a torn fragment into, and still refuses damage that is not a tear", () => {
    const path = directory.file("journal.db-head");
    const glued = `${header}\n${lineOf("t", "run_a", 1, "h1")}["t","run_a",2,"h${lineOf("t", "run_b", 1, "hb")}${lineOf("t", "run_a", 3, "h3")}`;
    writeFileSync(path, glued);
    const witness = HeadWitness.read(path)!;
    expect(witness.expected({ tenantId: "t", runId: "run_a" })).toEqual({ length: 3, hash: "h3" });
    expect(witness.expected({ tenantId: "t", runId: "run_b" })).toEqual({ length: 1, hash: "hb" });
    witness.close();
    for (const damaged of [
      `xx${lineOf("t", "run_a", 9, "h9")}`, // not a fragment of a line
      `["t","run_a",2,"h["t","run_a"]\n`, // a fragment glued to something that is not a head
      "not json\n",
      `${lineOf("t", "run_a", 0, "h0")}`, // a head of no events
    ]) {
      writeFileSync(path, `${header}\n${lineOf("t", "run_a", 1, "h1")}${damaged}`);
      expect(() => HeadWitness.read(path), damaged).toThrow(expect.objectContaining({ code: "JOURNAL_WITNESS_INVALID" }));
    }
  });

  it("property: any line torn anywhere, then glued to by the next (old writers) or cut off (this one), loses only the torn line", () => {
    const id = fc.string({ minLength: 1, maxLength: 8, unit: fc.constantFrom("a", "[", '"', "]", ",", "\\", "é", "😀", " ") });
    const heads = fc.array(
      fc.record({
        tenantId: id,
        runId: id,
        length: fc.integer({ min: 1, max: 1_000 }),
        hash: fc.string({ minLength: 1, maxLength: 8, unit: fc.constantFrom(..."0123456789abcdef") }),
      }),
      {
        minLength: 2,
        maxLength: 8,
      },
    );
    fc.assert(
      fc.property(heads, fc.nat(), fc.nat(), fc.boolean(), (entries, tornIndex, cut, glued) => {
        const torn = tornIndex % entries.length;
        const lines = entries.map((entry) => lineOf(entry.tenantId, entry.runId, entry.length, entry.hash));
        const tornLine = lines[torn]!;
        // A tear keeps a strict prefix of the line's bytes, at least the `[` a write begins with.
        const kept = Buffer.from(tornLine).subarray(0, 1 + (cut % (Buffer.byteLength(tornLine) - 1)));
        const path = directory.file(`heads-${torn}-${cut}`);
        const before = Buffer.from(`${header}\n${lines.slice(0, torn).join("")}`);
        const after = lines.slice(torn + 1).join("");
        const expected = new Map<string, { length: number; hash: string }>();
        entries.forEach((entry, index) => {
          if (index === torn) return;
          const key = JSON.stringify([entry.tenantId, entry.runId]);
          if ((expected.get(key)?.length ?? 0) < entry.length) expected.set(key, { length: entry.length, hash: entry.hash });
        });
        if (glued) {
          writeFileSync(path, Buffer.concat([before, kept, Buffer.from(after)]));
        } else {
          // This writer: the fragment is the tail when the next lines are recorded.
          writeFileSync(path, Buffer.concat([before, kept]));
          const writer = HeadWitness.read(path)!;
          for (const entry of entries.slice(torn + 1)) writer.record(entry, { length: entry.length, hash: entry.hash }, false);
          writer.close();
        }
        // A glued fragment that happens to decode as the start of a valid head would be ambiguous; JSON strings escape `"`, so none is.
        const witness = HeadWitness.read(path)!;
        const read = new Map([...witness.entries()].map(({ scope: run, head }) => [JSON.stringify([run.tenantId, run.runId]), head]));
        witness.close();
        expect(read).toEqual(expected);
      }),
    );
  });
});
