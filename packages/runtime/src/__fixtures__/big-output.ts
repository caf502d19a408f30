// Tools with outputs far larger than an event may hold, and ways to measure where they went.
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { defineTool } from "../define-tool.js";

const LINE = "0123456789abcdefghijklmnopqrstuvwxyz-log-line-of-a-very-chatty-build-step\n";

/** `bytes` bytes of ASCII log lines, the last one saying where it ends. */
export function bigText(bytes: number): string {
  const tail = "\nTHE END OF THE LOG";
  return LINE.repeat(Math.ceil(bytes / LINE.length)).slice(0, bytes - tail.length) + tail;
}

/** A tool named `dump` whose text output is `bytes` bytes (counting its calls). */
export function dumpTool(bytes: number) {
  const text = bigText(bytes);
  const calls: number[] = [];
  const tool = defineTool({
    name: "dump",
    description: "Dumps a big log.",
    input: z.object({}),
    sideEffect: "none",
    execute: async (_input, context) => {
      calls.push(context.attempt);
      return text;
    },
  });
  return { tool, text, calls, digest: `sha256:${createHash("sha256").update(text, "utf8").digest("hex")}` };
}

/** Bytes of every file under `directory` (a SQLite journal: the database, its WAL, its witness). */
export function bytesOnDisk(directory: string): number {
  return filesUnder(directory).reduce((sum, path) => sum + statSync(path).size, 0);
}

/** Every file under `directory`, recursively. */
export function filesUnder(directory: string): string[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** A fresh directory under the OS temp dir, and a way to remove it with everything in it. */
export function tempDirectory(prefix: string): { readonly path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}
