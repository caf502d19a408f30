// The journals the runtime's own tests wrote on the recorded code (the byte-stable ones, see
// capture/select-stable.ts) read back today: canonical, re-chained by a store to the same
// hashes (verified), folded to the recorded digest.
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { canonicalJson } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { firstDifference } from "./fixture-files.js";
import { parseCaptured, rechain, suiteFoldLines } from "./runtime-suite.ts";

const DIRECTORY = join(import.meta.dirname, "__fixtures__", "runtime-suite");
const files = existsSync(DIRECTORY) ? readdirSync(DIRECTORY).sort() : [];

describe("the runtime suite's journals read back", () => {
  it("were captured", () => {
    expect(files.length).toBeGreaterThan(0);
  });

  for (const file of files) {
    it(file, async () => {
      const journals = parseCaptured(readFileSync(join(DIRECTORY, file), "utf8"));
      expect(journals.length).toBeGreaterThan(0);
      for (const journal of journals) {
        for (const line of journal.lines) expect(canonicalJson(JSON.parse(line))).toBe(line);
        const chain = firstDifference(`${file}: ${journal.name}`, "journal (re-chained)", journal.lines, await rechain(journal));
        if (chain !== null) expect.fail(chain);
        const fold = firstDifference(`${file}: ${journal.name}`, "fold", journal.fold ?? [], suiteFoldLines(journal));
        if (fold !== null) expect.fail(fold);
      }
    });
  }
});
