import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { YokeError } from "@yoke/protocol";
import { describeArtifactStoreContract } from "@yoke/testkit/contracts";
import { describe, expect, it } from "vitest";
import { tempDirectory } from "./__fixtures__/temp-files.js";
import { createFileArtifactStore } from "./artifact-store-file.js";
import { createMemoryArtifactStore } from "./artifact-store-memory.js";

describeArtifactStoreContract("memory", async (options) => ({ store: createMemoryArtifactStore(options) }));

describeArtifactStoreContract(
  "files",
  async (options) => {
    const directory = tempDirectory("yoke-artifacts-");
    const store = createFileArtifactStore({ directory: directory.path, ...options });
    return {
      store,
      cleanup: () => directory.remove(),
      corrupt: (digest) => {
        const path = store.pathOf(digest);
        const bytes = readFileSync(path);
        bytes[0] = bytes[0]! ^ 1; // one flipped bit, same length
        writeFileSync(path, bytes);
      },
      remove: (digest) => rmSync(store.pathOf(digest)),
    };
  },
  { damage: true },
);

/** Every file under `root`, as paths relative to it. */
function filesUnder(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .sort();
}

describe("file artifact store", () => {
  it("lays out <dir>/sha256/<2 hex>/<62 hex>, one file per content, no temp file left behind", async () => {
    const directory = tempDirectory("yoke-artifacts-");
    try {
      const store = createFileArtifactStore({ directory: directory.path });
      const ref = await store.put("a log line\n".repeat(1_000));
      await store.put("a log line\n".repeat(1_000));
      await store.put(new TextEncoder().encode("a log line\n".repeat(1_000)));
      const hex = ref.digest.slice("sha256:".length);
      expect(filesUnder(directory.path)).toEqual([join("sha256", hex.slice(0, 2), hex.slice(2))]);
      expect(store.pathOf(ref)).toBe(join(directory.path, "sha256", hex.slice(0, 2), hex.slice(2)));
      expect(statSync(store.pathOf(ref)).size).toBe(11_000);
    } finally {
      directory.remove();
    }
  });

  it("does not rewrite an artifact it already holds intact", async () => {
    const directory = tempDirectory("yoke-artifacts-");
    try {
      const store = createFileArtifactStore({ directory: directory.path });
      const ref = await store.put("kept once");
      const before = statSync(store.pathOf(ref));
      expect(await store.put("kept once")).toEqual(ref);
      const after = statSync(store.pathOf(ref));
      expect({ ino: after.ino, mtimeMs: after.mtimeMs }).toEqual({ ino: before.ino, mtimeMs: before.mtimeMs }); // a rewrite renames a new file in
    } finally {
      directory.remove();
    }
  });

  it("a new store over the same directory finds what an earlier one put (a restart)", async () => {
    const directory = tempDirectory("yoke-artifacts-");
    try {
      const ref = await createFileArtifactStore({ directory: directory.path }).put("survives a restart", { mediaType: "text/plain" });
      const reopened = createFileArtifactStore({ directory: directory.path, fsync: false });
      expect(await reopened.has(ref.digest)).toBe(true);
      expect(new TextDecoder().decode(await reopened.get(ref.digest))).toBe("survives a restart");
    } finally {
      directory.remove();
    }
  });

  it("reports a truncated file as ARTIFACT_CORRUPT, naming the digest and the file", async () => {
    const directory = tempDirectory("yoke-artifacts-");
    try {
      const store = createFileArtifactStore({ directory: directory.path });
      const ref = await store.put("0123456789".repeat(100));
      writeFileSync(store.pathOf(ref), "0123456789");
      const error = await store.get(ref).catch((caught: unknown) => caught);
      expect(YokeError.hasCode(error, "ARTIFACT_CORRUPT")).toBe(true);
      expect((error as YokeError).details).toMatchObject({ digest: ref.digest, path: store.pathOf(ref) });
    } finally {
      directory.remove();
    }
  });

  it("refuses bad options with CONFIG_INVALID", () => {
    expect(() => createFileArtifactStore({ directory: "" })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    expect(() => createFileArtifactStore({ directory: "x", maxArtifactBytes: 0 })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
    expect(() => createMemoryArtifactStore({ maxArtifactBytes: 1.5 })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
  });
});
