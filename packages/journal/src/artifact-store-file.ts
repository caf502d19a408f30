import { createHash } from "node:crypto";
import { constants, existsSync } from "node:fs";
import { mkdir, open, readFile, rename, rm, stat, type FileHandle } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { YokeError, type ArtifactDigest, type ArtifactRef, type ArtifactScope, type ArtifactStoreV2 } from "@yoke/protocol";
import { bytesOf, checkMaxBytes, hexOf, missing, refOf, sha256HexOf, tenantOf, verified } from "./artifact-bytes.js";

export interface FileArtifactStoreOptions {
  /**
   * Where artifacts live: `<directory>/tenants/<tenant>/sha256/<first 2 hex>/<other 62 hex>`,
   * `<tenant>` the SHA-256 (hex) of the tenant id's UTF-8 bytes (a name no tenant id can
   * turn into a path). Created on the first put.
   */
  directory: string;
  /**
   * The tenant that owns the artifacts a store from before tenant scoping left in
   * `<directory>/sha256/…`: its `get` and `has` find them there (its puts go to its own
   * directory). Required when that directory exists: a store will not guess whose they are
   * (CONFIG_INVALID), and no other tenant ever reads them.
   */
  legacyTenantId?: string;
  /** Largest artifact `put` accepts, in bytes; larger is TOOL_OUTPUT_TOO_LARGE. Default: no limit. */
  maxArtifactBytes?: number;
  /**
   * fsync each artifact and its directory before `put` resolves (default true), so a journal
   * that references it after a crash finds it. `false` is for tests and scratch runs only.
   */
  fsync?: boolean;
}

/** The file-system store: the `ArtifactStoreV2` contract, plus where each artifact lives. */
export interface FileArtifactStore extends ArtifactStoreV2 {
  readonly directory: string;
  /** The file a tenant's artifact is (or would be) stored in. ARTIFACT_MISSING for a malformed digest. */
  pathOf(scope: ArtifactScope, ref: ArtifactRef | ArtifactDigest): string;
}

/**
 * Artifacts as files, one directory per tenant, addressed by the SHA-256 of their bytes: a
 * tenant's get or has never looks in another tenant's directory. A put writes a temporary
 * file beside the target, fsyncs it, renames it into place and fsyncs the directory: a crash
 * leaves the old state or the new one, never half a file under a digest. Putting bytes the
 * store already holds (verified) writes nothing. `get` re-hashes what it reads and throws
 * ARTIFACT_CORRUPT when the file no longer matches its name, ARTIFACT_MISSING when it is
 * gone; ARTIFACT_UNAVAILABLE (retryable) for any other I/O failure.
 *
 * @example
 * ```ts
 * const artifacts = createFileArtifactStore({ directory: "runs/artifacts", maxArtifactBytes: 1 << 30 });
 * const acme = { tenantId: "acme" };
 * const ref = await artifacts.put(acme, hugeLog, { mediaType: "text/plain; charset=utf-8" });
 * // ref.digest === "sha256:…"; the bytes are in artifacts.pathOf(acme, ref)
 * const bytes = await artifacts.get(acme, ref.digest);
 * ```
 */
export function createFileArtifactStore(options: FileArtifactStoreOptions): FileArtifactStore {
  if (typeof options?.directory !== "string" || options.directory === "") {
    throw new YokeError("CONFIG_INVALID", "createFileArtifactStore: directory must be a non-empty path", { details: { option: "directory" } });
  }
  const maxBytes = checkMaxBytes(options.maxArtifactBytes);
  const sync = options.fsync ?? true;
  const directory = resolve(options.directory);
  const legacyTenantId = options.legacyTenantId;
  if (legacyTenantId !== undefined && (typeof legacyTenantId !== "string" || legacyTenantId === "")) {
    throw new YokeError("CONFIG_INVALID", "createFileArtifactStore: legacyTenantId must be a non-empty string", { details: { option: "legacyTenantId" } });
  }
  if (legacyTenantId === undefined && existsSync(join(directory, "sha256"))) {
    throw new YokeError(
      "CONFIG_INVALID",
      `createFileArtifactStore: ${directory} holds artifacts from before they were scoped by tenant (${join(directory, "sha256")}); name the tenant they belong to with legacyTenantId`,
      { details: { option: "legacyTenantId", directory } },
    );
  }
  const tenantDirectory = (tenantId: string) => join(directory, "tenants", createHash("sha256").update(tenantId, "utf8").digest("hex"));
  const pathOfHex = (tenantId: string, hex: string) => join(tenantDirectory(tenantId), "sha256", hex.slice(0, 2), hex.slice(2));
  const legacyPathOf = (tenantId: string, hex: string) => (tenantId === legacyTenantId ? join(directory, "sha256", hex.slice(0, 2), hex.slice(2)) : undefined);
  const pathOf = (scope: ArtifactScope, ref: ArtifactRef | ArtifactDigest) => {
    const tenantId = tenantOf(scope);
    const hex = hexOf(ref);
    if (hex === undefined) throw missing(ref);
    return pathOfHex(tenantId, hex);
  };

  /** True when `path` holds exactly the bytes of `hex` (a damaged file is replaced by the put). */
  async function holds(path: string, hex: string, bytes: number): Promise<boolean> {
    try {
      if ((await stat(path)).size !== bytes) return false;
      return sha256HexOf(await readFile(path)) === hex;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw unavailable("read", path, error);
    }
  }

  async function write(path: string, bytes: Uint8Array): Promise<void> {
    const shard = dirname(path);
    const created = await mkdir(shard, { recursive: true });
    // A name no other writer uses (O_EXCL): two puts of the same bytes race to one atomic rename.
    let temporary: string;
    let handle: FileHandle;
    for (;;) {
      temporary = join(shard, `.${process.pid}.${++temporaries}.tmp`);
      try {
        handle = await open(temporary, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o644);
        break;
      } catch (error) {
        if ((error as { code?: unknown }).code !== "EEXIST") throw error; // left by a dead process with our pid
      }
    }
    try {
      await handle.writeFile(bytes);
      if (sync) await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await rename(temporary, path);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    if (!sync) return;
    await syncDirectory(shard);
    // New directories must be durable too: every parent up to the first that already existed.
    if (created !== undefined) {
      for (let dir = dirname(shard); dir.length >= dirname(created).length && dir !== dirname(dir); dir = dirname(dir)) await syncDirectory(dir);
    }
  }

  return {
    specificationVersion: "v2",
    directory,
    pathOf,
    async put(scope, content, meta) {
      const tenantId = tenantOf(scope);
      const bytes = bytesOf(content);
      const ref = refOf(bytes, meta, maxBytes);
      const hex = ref.digest.slice("sha256:".length);
      const path = pathOfHex(tenantId, hex);
      if (await holds(path, hex, bytes.byteLength)) return ref;
      try {
        await write(path, bytes);
      } catch (error) {
        throw YokeError.isInstance(error) ? error : unavailable("write", path, error);
      }
      return ref;
    },
    async get(scope, ref) {
      const tenantId = tenantOf(scope);
      const hex = hexOf(ref);
      if (hex === undefined) throw missing(ref);
      const path = pathOfHex(tenantId, hex);
      const legacy = legacyPathOf(tenantId, hex);
      for (const candidate of legacy === undefined ? [path] : [path, legacy]) {
        let bytes: Uint8Array;
        try {
          bytes = await readFile(candidate);
        } catch (error) {
          if (isNotFound(error)) continue;
          throw unavailable("read", candidate, error);
        }
        return verified(bytes, hex, candidate);
      }
      throw missing(ref, path);
    },
    async has(scope, ref) {
      const tenantId = tenantOf(scope);
      const hex = hexOf(ref);
      if (hex === undefined) return false;
      const legacy = legacyPathOf(tenantId, hex);
      for (const candidate of legacy === undefined ? [pathOfHex(tenantId, hex)] : [pathOfHex(tenantId, hex), legacy]) {
        try {
          if ((await stat(candidate)).isFile()) return true;
        } catch (error) {
          if (!isNotFound(error)) throw unavailable("read", candidate, error);
        }
      }
      return false;
    },
  };
}

let temporaries = 0;

function isNotFound(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}

function unavailable(verb: "read" | "write", path: string, cause: unknown): YokeError {
  const why = cause instanceof Error ? cause.message : String(cause);
  return new YokeError("ARTIFACT_UNAVAILABLE", `could not ${verb} artifact ${path}: ${why}`, { details: { path }, cause });
}

async function syncDirectory(directory: string): Promise<void> {
  let handle: FileHandle | undefined;
  try {
    handle = await open(directory, constants.O_RDONLY);
    await handle.sync();
  } catch {
    // Some file systems refuse to fsync a directory; the rename is still atomic.
  } finally {
    await handle?.close();
  }
}
