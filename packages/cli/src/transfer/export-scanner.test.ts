// The streaming reader of `yoke import` finds what JSON.parse finds: every element of the
// `events` array and every other top-level field, whatever the formatting, the key order, the
// characters inside strings (quotes, backslashes, brackets, multi-byte UTF-8) and wherever the
// chunks of the file happen to split them.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { type ExportItem, scanExport } from "./export-scanner.js";

const dir = mkdtempSync(join(tmpdir(), "yoke-export-scanner-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

function scan(text: string, maxEventUnits: number, chunkBytes: number): ExportItem[] {
  const file = join(dir, `doc-${++files}.json`);
  writeFileSync(file, text);
  return [...scanExport(file, maxEventUnits, chunkBytes)];
}

const tricky = fc.oneof(fc.string({ unit: "binary" }), fc.constantFrom('"]},{\\"', "\\", "é€😀", "[[{{", "\u2028"));
const json = fc.jsonValue({ maxDepth: 3 }).map((value) => value);
const field = fc.oneof(json, tricky);

describe("scanExport", () => {
  it("yields what JSON.parse reads, for any document, formatting, key order and chunk size", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(json, tricky, fc.record({ text: tricky, nested: json })), { maxLength: 6 }),
        fc.dictionary(
          fc.string({ maxLength: 8 }).filter((key) => key !== "events"),
          field,
          { maxKeys: 4 },
        ),
        fc.nat({ max: 5 }),
        fc.constantFrom(0, 2, "\t"),
        fc.integer({ min: 1, max: 64 }),
        (events, fields, position, indent, chunkBytes) => {
          const entries = Object.entries(fields);
          entries.splice(Math.min(position, entries.length), 0, ["events", events]);
          const text = JSON.stringify(Object.fromEntries(entries), null, indent);
          const items = scan(` \n${text}\n`, Number.MAX_SAFE_INTEGER, chunkBytes);
          const parsed = JSON.parse(text) as Record<string, unknown>;
          expect(items.filter((item) => item.kind === "event").map((item) => (item as { value: unknown }).value)).toEqual(parsed.events);
          const others = Object.fromEntries(items.flatMap((item) => (item.kind === "field" ? [[item.key, item.value]] : [])));
          const { events: _events, ...rest } = parsed;
          expect(others).toEqual(rest);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("an element past the bound is not kept: it is reported with its exact size in bytes, and the next one is read", () => {
    const big = { text: "é".repeat(100) };
    const items = scan(JSON.stringify({ events: [1, big, 2], format: "x" }), 50, 16);
    expect(items).toEqual([
      { kind: "event", index: 0, value: 1, bytes: 1 },
      { kind: "oversized", index: 1, bytes: Buffer.byteLength(JSON.stringify(big)) },
      { kind: "event", index: 2, value: 2, bytes: 1 },
      { kind: "field", key: "format", value: "x" },
    ]);
  });

  it("malformed or truncated JSON is CONFIG_INVALID", () => {
    for (const text of ["", "hello", '{"events":[1,2', '{"events":[1 2]}', '{"a":1}x', '{"a" 1}', "[1]", '{"events":[{"a":"b}]}']) {
      expect(() => scan(text, 1_000, 4), text).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    }
  });
});
