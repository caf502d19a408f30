import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { YokeError } from "@yoke/protocol";
import { afterEach, beforeEach } from "vitest";

/** A fresh directory under the OS temp dir, and a way to remove it with everything in it. */
export function tempDirectory(prefix = "yoke-journal-"): { readonly path: string; file(name: string): string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return {
    path,
    file: (name) => join(path, name),
    remove: () => rmSync(path, { recursive: true, force: true }),
  };
}

/**
 * A fresh temp directory for every test of the calling suite (its own beforeEach/afterEach),
 * removed after each test: `file(name)` is a path in the current test's directory.
 */
export function tempDirectoryPerTest(prefix?: string): { file(name: string): string } {
  let current: ReturnType<typeof tempDirectory> | undefined;
  beforeEach(() => {
    current = tempDirectory(prefix);
  });
  afterEach(() => {
    current?.remove();
    current = undefined;
  });
  return {
    file(name) {
      if (current === undefined) throw new YokeError("INTERNAL", "tempDirectoryPerTest: file() is for use inside a test");
      return current.file(name);
    },
  };
}
