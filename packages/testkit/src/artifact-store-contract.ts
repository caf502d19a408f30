import { createHash } from "node:crypto";
import { YokeError, type ArtifactStoreV1 } from "@yoke/protocol";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

/** What a contract test gets: a fresh, empty store and, where the store can, ways to damage it. */
export interface ArtifactStoreContractSubject {
  store: ArtifactStoreV1;
  cleanup?: () => Promise<void> | void;
  /** Changes the stored bytes of `digest` behind the store's back (a flipped bit on disk). */
  corrupt?: (digest: string) => Promise<void> | void;
  /** Removes the stored bytes of `digest` behind the store's back (a lost file). */
  remove?: (digest: string) => Promise<void> | void;
}

/** Opens a fresh, empty store for one test, refusing artifacts larger than `maxArtifactBytes` when it is given. */
export type ArtifactStoreFactory = (options: { maxArtifactBytes?: number }) => Promise<ArtifactStoreContractSubject>;

export interface ArtifactStoreContractOptions {
  /** Also run the damage cases: the factory's subjects give `corrupt` and `remove`. */
  readonly damage?: boolean;
}

function hook<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw new YokeError("TESTKIT_EXPECTATION_FAILED", `the contract was asked for damage cases, but the subject gives no ${name}`);
  return value;
}

const digestOf = (bytes: Uint8Array | string) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/**
 * The contract every `ArtifactStoreV1` must keep: content addressing (the digest is the
 * SHA-256 of the bytes, strings as UTF-8), idempotent puts, exact round trips of text and
 * binary, typed errors for what is absent (ARTIFACT_MISSING), damaged (ARTIFACT_CORRUPT) or
 * too large (TOOL_OUTPUT_TOO_LARGE), and no path out of the store through a malformed digest.
 * Call it inside a vitest file.
 *
 * @example
 * ```ts
 * describeArtifactStoreContract("memory", async (options) => ({ store: createMemoryArtifactStore(options) }));
 * describeArtifactStoreContract("files", async (options) => {
 *   const directory = mkdtempSync(join(tmpdir(), "artifacts-"));
 *   const store = createFileArtifactStore({ directory, ...options });
 *   return { store, cleanup: () => rmSync(directory, { recursive: true }), remove: (digest) => rmSync(store.pathOf(digest)), corrupt: (digest) => appendFileSync(store.pathOf(digest), "!") };
 * }, { damage: true });
 * ```
 */
export function describeArtifactStoreContract(name: string, factory: ArtifactStoreFactory, options: ArtifactStoreContractOptions = {}): void {
  describe(`ArtifactStoreV1 contract: ${name}`, () => {
    let subject: ArtifactStoreContractSubject;
    let store: ArtifactStoreV1;
    beforeEach(async () => {
      subject = await factory({});
      store = subject.store;
    });
    afterEach(async () => {
      await subject.cleanup?.();
    });

    it("addresses a string by the SHA-256 of its UTF-8 bytes and gives them back exactly", async () => {
      const content = "héllo, wörld ✓ 🦀\nline two";
      const ref = await store.put(content, { mediaType: "text/plain; charset=utf-8" });
      expect(ref).toEqual({ digest: digestOf(content), bytes: Buffer.byteLength(content, "utf8"), mediaType: "text/plain; charset=utf-8" });
      expect(store.specificationVersion).toBe("v1");
      expect(text(await store.get(ref))).toBe(content);
      expect(text(await store.get(ref.digest))).toBe(content);
      expect(await store.has(ref)).toBe(true);
      expect(await store.has(ref.digest)).toBe(true);
    });

    it("stores binary bytes as they are, and the same bytes as a string or an array under one digest", async () => {
      const binary = Uint8Array.from([0, 255, 0xc3, 0x28, 10, 13, 0, 1]);
      const ref = await store.put(binary);
      expect(ref).toEqual({ digest: digestOf(binary), bytes: 8 });
      expect(Array.from(await store.get(ref))).toEqual(Array.from(binary));
      const fromText = await store.put("abc");
      const fromBytes = await store.put(new TextEncoder().encode("abc"));
      expect(fromBytes.digest).toBe(fromText.digest);
      expect(fromBytes.bytes).toBe(3);
    });

    it("is idempotent: the same content gives the same ref, however often and however concurrently it is put", async () => {
      const content = "x".repeat(100_000);
      const refs = await Promise.all(Array.from({ length: 8 }, () => store.put(content)));
      for (const ref of refs) expect(ref).toEqual(refs[0]);
      expect(await store.put(content)).toEqual(refs[0]);
      expect(text(await store.get(refs[0]!))).toBe(content);
    });

    it("stores the empty content", async () => {
      const ref = await store.put("");
      expect(ref).toEqual({ digest: digestOf(""), bytes: 0 });
      expect((await store.get(ref)).byteLength).toBe(0);
    });

    it("keeps what it was given: changing the caller's array, or what get returned, changes nothing stored", async () => {
      const bytes = new TextEncoder().encode("original");
      const ref = await store.put(bytes);
      bytes.fill(0);
      const read = await store.get(ref);
      read.fill(0);
      expect(text(await store.get(ref))).toBe("original");
    });

    it("throws ARTIFACT_MISSING for a digest it never stored; has says false", async () => {
      const absent = digestOf("never put");
      await expect(store.get(absent)).rejects.toSatisfy((error) => YokeError.hasCode(error, "ARTIFACT_MISSING"));
      await expect(store.get({ digest: absent, bytes: 9 })).rejects.toSatisfy((error) => YokeError.hasCode(error, "ARTIFACT_MISSING"));
      expect(await store.has(absent)).toBe(false);
    });

    it("treats a malformed digest as absent: never a path, never another hash", async () => {
      await store.put("something");
      for (const bad of ["sha256:../../../etc/passwd", `sha256:${"A".repeat(64)}`, "sha256:", "", `md5:${"a".repeat(32)}`, "a".repeat(64)]) {
        await expect(store.get(bad as `sha256:${string}`)).rejects.toSatisfy((error) => YokeError.hasCode(error, "ARTIFACT_MISSING"));
        expect(await store.has(bad as `sha256:${string}`)).toBe(false);
      }
    });

    it("refuses content larger than its limit with TOOL_OUTPUT_TOO_LARGE, and accepts the limit exactly", async () => {
      const limited = await factory({ maxArtifactBytes: 1_024 });
      try {
        expect((await limited.store.put("a".repeat(1_024))).bytes).toBe(1_024);
        const error = await limited.store.put("é".repeat(513)).catch((caught: unknown) => caught);
        expect(YokeError.hasCode(error, "TOOL_OUTPUT_TOO_LARGE")).toBe(true);
        expect((error as YokeError).details).toMatchObject({ bytes: 1_026, maxArtifactBytes: 1_024 });
        expect(await limited.store.has(digestOf("é".repeat(513)))).toBe(false);
      } finally {
        await limited.cleanup?.();
      }
    });

    if (options.damage !== true) return;

    it("throws ARTIFACT_CORRUPT when the stored bytes no longer hash to their digest", async () => {
      const ref = await store.put("the build log, line 1\n");
      await hook(subject.corrupt, "corrupt")(ref.digest);
      await expect(store.get(ref)).rejects.toSatisfy((error) => YokeError.hasCode(error, "ARTIFACT_CORRUPT"));
      // A put of the same content repairs it.
      expect(await store.put("the build log, line 1\n")).toEqual({ digest: ref.digest, bytes: ref.bytes });
      expect(text(await store.get(ref))).toBe("the build log, line 1\n");
    });

    it("throws ARTIFACT_MISSING when the stored bytes were lost", async () => {
      const ref = await store.put("kept for a while");
      await hook(subject.remove, "remove")(ref.digest);
      expect(await store.has(ref)).toBe(false);
      await expect(store.get(ref)).rejects.toSatisfy((error) => YokeError.hasCode(error, "ARTIFACT_MISSING"));
    });
  });
}
