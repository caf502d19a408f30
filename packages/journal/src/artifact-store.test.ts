import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
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
      corrupt: (scope, digest) => {
        const path = store.pathOf(scope, digest);
        const bytes = readFileSync(path);
        bytes[0] = bytes[0]! ^ 1; // one flipped bit, same length
        writeFileSync(path, bytes);
      },
      remove: (scope, digest) => rmSync(store.pathOf(scope, digest)),
    };
  },
  { damage: true },
);

const ACME = { tenantId: "acme" };

/** Every file under `root`, as paths relative to it. */
function filesUnder(root: string): string[] {
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .sort();
}

describe("file artifact store", () => {
  it("lays out <dir>/tenants/<sha256 of tenant>/sha256/<2 hex>/<62 hex>, one file per tenant and content, no temp file left behind", async () => {
    const directory = tempDirectory("yoke-artifacts-");
    try {
      const store = createFileArtifactStore({ directory: directory.path });
      const ref = await store.put(ACME, "a log line\n".repeat(1_000));
      await store.put(ACME, "a log line\n".repeat(1_000));
      await store.put(ACME, new TextEncoder().encode("a log line\n".repeat(1_000)));
      const hex = ref.digest.slice("sha256:".length);
      const tenant = createHash("sha256").update("acme").digest("hex");
      expect(filesUnder(directory.path)).toEqual([join("tenants", tenant, "sha256", hex.slice(0, 2), hex.slice(2))]);
      expect(store.pathOf(ACME, ref)).toBe(join(directory.path, "tenants", tenant, "sha256", hex.slice(0, 2), hex.slice(2)));
      expect(statSync(store.pathOf(ACME, ref)).size).toBe(11_000);
      // The same bytes for another tenant: a second file, in that tenant's directory.
      await store.put({ tenantId: "../acme" }, "a log line\n".repeat(1_000));
      const other = createHash("sha256").update("../acme").digest("hex");
      expect(filesUnder(directory.path)).toEqual(
        [join("tenants", tenant, "sha256", hex.slice(0, 2), hex.slice(2)), join("tenants", other, "sha256", hex.slice(0, 2), hex.slice(2))].sort(),
      );
    } finally {
      directory.remove();
    }
  });

  it("does not rewrite an artifact it already holds intact", async () => {
    const directory = tempDirectory("yoke-artifacts-");
    try {
      const store = createFileArtifactStore({ directory: directory.path });
      const ref = await store.put(ACME, "kept once");
      const before = statSync(store.pathOf(ACME, ref));
      expect(await store.put(ACME, "kept once")).toEqual(ref);
      const after = statSync(store.pathOf(ACME, ref));
      expect({ ino: after.ino, mtimeMs: after.mtimeMs }).toEqual({ ino: before.ino, mtimeMs: before.mtimeMs }); // a rewrite renames a new file in
    } finally {
      directory.remove();
    }
  });

  it("a new store over the same directory finds what an earlier one put (a restart)", async () => {
    const directory = tempDirectory("yoke-artifacts-");
    try {
      const ref = await createFileArtifactStore({ directory: directory.path }).put(ACME, "survives a restart", { mediaType: "text/plain" });
      const reopened = createFileArtifactStore({ directory: directory.path, fsync: false });
      expect(await reopened.has(ACME, ref.digest)).toBe(true);
      expect(new TextDecoder().decode(await reopened.get(ACME, ref.digest))).toBe("survives a restart");
    } finally {
      directory.remove();
    }
  });

  it("reports a truncated file as ARTIFACT_CORRUPT, naming the digest and the file", async () => {
    const directory = tempDirectory("yoke-artifacts-");
    try {
      const store = createFileArtifactStore({ directory: directory.path });
      const ref = await store.put(ACME, "0123456789".repeat(100));
      writeFileSync(store.pathOf(ACME, ref), "0123456789");
      const error = await store.get(ACME, ref).catch((caught: unknown) => caught);
      expect(YokeError.hasCode(error, "ARTIFACT_CORRUPT")).toBe(true);
      expect((error as YokeError).details).toMatchObject({ digest: ref.digest, path: store.pathOf(ACME, ref) });
    } finally {
      directory.remove();
    }
  });

  it("a directory from before tenant scoping: refused until its tenant is named; then that tenant, and no other, reads what it holds", async () => {
    const directory = tempDirectory("yoke-artifacts-");
    try {
      // What the unscoped store wrote: <dir>/sha256/<2 hex>/<62 hex>.
      const content = "an output journaled before tenants";
      const hex = createHash("sha256").update(content).digest("hex");
      mkdirSync(join(directory.path, "sha256", hex.slice(0, 2)), { recursive: true });
      writeFileSync(join(directory.path, "sha256", hex.slice(0, 2), hex.slice(2)), content);
      const digest = `sha256:${hex}` as const;
      const refused = (() => {
        try {
          createFileArtifactStore({ directory: directory.path });
        } catch (error) {
          return error;
        }
      })();
      expect(YokeError.hasCode(refused, "CONFIG_INVALID")).toBe(true);
      expect((refused as YokeError).message).toContain("legacyTenantId");
      const store = createFileArtifactStore({ directory: directory.path, legacyTenantId: "acme" });
      expect(await store.has(ACME, digest)).toBe(true);
      expect(new TextDecoder().decode(await store.get(ACME, digest))).toBe(content);
      expect(await store.has({ tenantId: "globex" }, digest)).toBe(false);
      await expect(store.get({ tenantId: "globex" }, digest)).rejects.toSatisfy((error) => YokeError.hasCode(error, "ARTIFACT_MISSING"));
      // New puts go to the tenant's own directory; the legacy file is left as it was.
      const ref = await store.put(ACME, "new");
      expect(store.pathOf(ACME, ref)).toContain(join(directory.path, "tenants"));
      expect(() => createFileArtifactStore({ directory: directory.path, legacyTenantId: "" })).toThrow(expect.objectContaining({ code: "CONFIG_INVALID" }));
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
