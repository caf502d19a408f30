// The committed fixtures: one directory per scenario, one JSONL file per record; written only
// with YOKE_CORPUS_RECORD=1, otherwise compared byte for byte, naming the first line that differs.
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const GOLDEN = join(import.meta.dirname, "__fixtures__", "golden");

/** Re-recording is for an intended, changeset-carrying change of the journal format only (see the README). */
export const RECORDING = process.env.YOKE_CORPUS_RECORD === "1";

export function fixturePath(scenario: string, file: string): string {
  return join(GOLDEN, scenario, `${file}.jsonl`);
}

export function goldenScenarios(): string[] {
  return existsSync(GOLDEN) ? readdirSync(GOLDEN).sort() : [];
}

export function writeFixture(scenario: string, file: string, lines: readonly string[]): void {
  mkdirSync(join(GOLDEN, scenario), { recursive: true });
  writeFileSync(fixturePath(scenario, file), lines.map((line) => `${line}\n`).join(""));
}

export function readFixture(scenario: string, file: string): string[] {
  const path = fixturePath(scenario, file);
  if (!existsSync(path)) throw new Error(`no fixture ${path}: record the corpus on the code whose bytes it pins (YOKE_CORPUS_RECORD=1, see the README)`);
  const text = readFileSync(path, "utf8");
  return text === "" ? [] : text.slice(0, -1).split("\n");
}

function describeLine(line: string | undefined): string {
  if (line === undefined) return "(no line)";
  return line;
}

/** Where two lines first differ, with 60 characters around it from each: a long event's change is otherwise hard to spot. */
function around(expected: string | undefined, actual: string | undefined): string {
  if (expected === undefined || actual === undefined) return "";
  let column = 0;
  while (column < expected.length && expected[column] === actual[column]) column += 1;
  const from = Math.max(0, column - 60);
  return `first differing character at column ${column + 1}:\n  recorded: …${expected.slice(from, column + 60)}…\n  now:      …${actual.slice(from, column + 60)}…`;
}

function seqOf(line: string | undefined): string {
  if (line === undefined) return "-";
  try {
    const value = JSON.parse(line) as { seq?: unknown; runId?: unknown; type?: unknown; prefix?: unknown };
    if (typeof value.seq === "number") return `${String(value.runId)} seq ${value.seq} (${String(value.type)})`;
    if (typeof value.prefix === "number") return `resume of prefix ${value.prefix}`;
  } catch {
    // not JSON: the line number says where
  }
  return "-";
}

/**
 * Null when `actual` is `expected` line for line; otherwise a message naming the scenario, the
 * file, the first differing line, the event there (run and seq) and both JSONs.
 */
export function firstDifference(scenario: string, file: string, expected: readonly string[], actual: readonly string[]): string | null {
  const length = Math.max(expected.length, actual.length);
  for (let index = 0; index < length; index += 1) {
    if (expected[index] === actual[index]) continue;
    return [
      `journal corpus: scenario "${scenario}", ${file}.jsonl line ${index + 1} of ${expected.length} recorded (${actual.length} now) differs`,
      `at: ${seqOf(expected[index] ?? actual[index])}`,
      around(expected[index], actual[index]),
      `recorded: ${describeLine(expected[index])}`,
      `now:      ${describeLine(actual[index])}`,
    ].join("\n");
  }
  return null;
}
