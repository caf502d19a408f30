import { constants } from "node:fs";
import { mkdir, open, readFile, rename, rm, stat, type FileHandle } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { YokeError, type ArtifactDigest, type ArtifactRef, type ArtifactStoreV1 } from "@yoke/protocol";
import { bytesOf, checkMaxBytes, hexOf, missing, refOf, sha256HexOf, verified } from "./artifact-bytes.js";

export interface FileArtifactStoreOptions {
  /** Where artifacts live: `<directory>/sha256/<first 2 hex>/<other 62 hex>`. Created on the first put. */
  directory: string;
  /** Largest artifact `put` accepts, in bytes; larger is TOOL_OUTPUT_TOO_LARGE. Default: no limit. */
  maxArtifactBytes?: number;
  /**
   * fsync each artifact and its directory before `put` resolves (default true), so a journal
   * that references it after a crash finds it. `false` is for tests and scratch runs only.
   */
  fsync?: boolean;
}

/** The file-system store: the `ArtifactStoreV1` contract, plus where each artifact lives. */
export interface FileArtifactStore extends ArtifactStoreV1 {
  readonly directory: string;
  /** The file an artifact is (or would be) stored in. ARTIFACT_MISSING for a malformed digest. */
  pathOf(ref: ArtifactRef | ArtifactDigest): string;
}

/**
 * Artifacts as files, addressed by the SHA-256 of their bytes. A put writes a temporary
 * file beside the target, fsyncs it, renames it into place and fsyncs the directory: a crash
 * leaves the old state or the new one, never half a file under a digest. Putting bytes the
 * store already holds (verified) writes nothing. `get` re-hashes what it reads and throws
 * ARTIFACT_CORRUPT when the file no longer matches its name, ARTIFACT_MISSING when it is
 * gone; ARTIFACT_UNAVAILABLE (retryable) for any other I/O failure.
 *
 * @example
 * ```ts
 * const artifacts = createFileArtifactStore({ directory: "runs/artifacts", maxArtifactBytes: 1 << 30 });
 * const ref = await artifacts.put(hugeLog, { mediaType: "text/plain; charset=utf-8" });
 * // ref.digest === "sha256:…"; the bytes are in artifacts.pathOf(ref)
 * const bytes = await artifacts.get(ref.digest);
 * ```
 */
export function createFileArtifactStore(options: FileArtifactStoreOptions): FileArtifactStore {
  if (typeof options?.directory !== "string" || options.directory === "") {
    throw new YokeError("CONFIG_INVALID", "createFileArtifactStore: directory must be a non-empty path", { details: { option: "directory" } });
  }
  const maxBytes = checkMaxBytes(options.maxArtifactBytes);
  const sync = options.fsync ?? true;
  const directory = resolve(options.directory);
  const pathOfHex = (hex: string) => join(directory, "sha256", hex.slice(0, 2), hex.slice(2));
  const pathOf = (ref: ArtifactRef | ArtifactDigest) => {
    const hex = hexOf(ref);
    if (hex === undefined) throw missing(ref);
    return pathOfHex(hex);
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
    specificationVersion: "v1",
    directory,
    pathOf,
    async put(content, meta) {
      const bytes = bytesOf(content);
      const ref = refOf(bytes, meta, maxBytes);
      const hex = ref.digest.slice("sha256:".length);
      const path = pathOfHex(hex);
      if (await holds(path, hex, bytes.byteLength)) return ref;
      try {
        await write(path, bytes);
      } catch (error) {
        throw YokeError.isInstance(error) ? error : unavailable("write", path, error);
      }
      return ref;
    },
    async get(ref) {
      const hex = hexOf(ref);
      if (hex === undefined) throw missing(ref);
      const path = pathOfHex(hex);
      let bytes: Uint8Array;
      try {
        bytes = await readFile(path);
      } catch (error) {
        if (isNotFound(error)) throw missing(ref, path);
        throw unavailable("read", path, error);
      }
      return verified(bytes, hex, path);
    },
    async has(ref) {
      const hex = hexOf(ref);
      if (hex === undefined) return false;
      try {
        return (await stat(pathOfHex(hex))).isFile();
      } catch (error) {
        if (isNotFound(error)) return false;
        throw unavailable("read", pathOfHex(hex), error);
      }
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
