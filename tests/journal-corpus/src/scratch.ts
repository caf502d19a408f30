// Scratch directories scenarios need outside the journal (a demo workspace, an effect ledger):
// one fresh directory per harness, all under one root the corpus test removes when it ends.
// Their paths never reach a journal.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

let root: string | undefined;
let made = 0;

/** A new empty directory (`<prefix>-<n>`). */
export function scratchDirectory(prefix: string): string {
  root ??= mkdtempSync(join(tmpdir(), "yoke-corpus-scratch-"));
  made += 1;
  const directory = join(root, `${prefix}-${made}`);
  mkdirSync(directory, { recursive: true });
  return directory;
}

/** Removes every scratch directory made so far. */
export function removeScratch(): void {
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
  root = undefined;
}
