import { createHash } from "node:crypto";
import { YokeError, type ArtifactScope, type ArtifactStoreV2 } from "@yoke/protocol";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

/** What a contract test gets: a fresh, empty store and, where the store can, ways to damage it. */
export interface ArtifactStoreContractSubject {
  store: ArtifactStoreV2;
  cleanup?: () => Promise<void> | void;
  /** Changes the bytes of `digest` the store holds for the tenant, behind its back (a flipped bit on disk). */
  corrupt?: (scope: ArtifactScope, digest: string) => Promise<void> | void;
  /** Removes the bytes of `digest` the store holds for the tenant, behind its back (a lost file). */
  remove?: (scope: ArtifactScope, digest: string) => Promise<void> | void;
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

const ACME: ArtifactScope = { tenantId: "acme" };
const GLOBEX: ArtifactScope = { tenantId: "globex" };
const digestOf = (bytes: Uint8Array | string) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/**
 * The contract every `ArtifactStoreV2` must keep: content addressing (the digest is the
 * SHA-256 of the bytes, strings as UTF-8), idempotent puts, exact round trips of text and
 * binary, tenants kept apart (another tenant's read finds nothing, even of the same bytes),
 * typed errors for what is absent (ARTIFACT_MISSING), damaged (ARTIFACT_CORRUPT), too large
 * (TOOL_OUTPUT_TOO_LARGE) or unscoped (ARTIFACT_SCOPE_INVALID), and no path out of the store
 * through a malformed digest or tenant id. Call it inside a vitest file.
 *
 * @example
 * ```ts
 * describeArtifactStoreContract("memory", async (options) => ({ store: createMemoryArtifactStore(options) }));
 * describeArtifactStoreContract("files", async (options) => {
 *   const directory = mkdtempSync(join(tmpdir(), "artifacts-"));
 *   const store = createFileArtifactStore({ directory, ...options });
 *   return {
 *     store,
 *     cleanup: () => rmSync(directory, { recursive: true }),
 *     remove: (scope, digest) => rmSync(store.pathOf(scope, digest)),
 *     corrupt: (scope, digest) => appendFileSync(store.pathOf(scope, digest), "!"),
 *   };
 * }, { damage: true });
 * ```
 */
export function describeArtifactStoreContract(name: string, factory: ArtifactStoreFactory, options: ArtifactStoreContractOptions = {}): void {
  describe(`ArtifactStoreV2 contract: ${name}`, () => {
    let subject: ArtifactStoreContractSubject;
    let store: ArtifactStoreV2;
    beforeEach(async () => {
      subject = await factory({});
      store = subject.store;
    });
    afterEach(async () => {
      await subject.cleanup?.();
    });

    it("addresses a string by the SHA-256 of its UTF-8 bytes and gives them back exactly", async () => {
      const content = "héllo, wörld ✓ 🦀\nline two";
      const ref = await store.put(ACME, content, { mediaType: "text/plain; charset=utf-8" });
      expect(ref).toEqual({ digest: digestOf(content), bytes: Buffer.byteLength(content, "utf8"), mediaType: "text/plain; charset=utf-8" });
      expect(store.specificationVersion).toBe("v2");
      expect(text(await store.get(ACME, ref))).toBe(content);
      expect(text(await store.get(ACME, ref.digest))).toBe(content);
      expect(await store.has(ACME, ref)).toBe(true);
      expect(await store.has(ACME, ref.digest)).toBe(true);
    });

    it("stores binary bytes as they are, and the same bytes as a string or an array under one digest", async () => {
      const binary = Uint8Array.from([0, 255, 0xc3, 0x28, 10, 13, 0, 1]);
      const ref = await store.put(ACME, binary);
      expect(ref).toEqual({ digest: digestOf(binary), bytes: 8 });
      expect(Array.from(await store.get(ACME, ref))).toEqual(Array.from(binary));
      const fromText = await store.put(ACME, "abc");
      const fromBytes = await store.put(ACME, new TextEncoder().encode("abc"));
      expect(fromBytes.digest).toBe(fromText.digest);
      expect(fromBytes.bytes).toBe(3);
    });

    it("is idempotent: the same content gives the same ref, however often and however concurrently it is put", async () => {
      const content = "x".repeat(100_000);
      const refs = await Promise.all(Array.from({ length: 8 }, () => store.put(ACME, content)));
      for (const ref of refs) expect(ref).toEqual(refs[0]);
      expect(await store.put(ACME, content)).toEqual(refs[0]);
      expect(text(await store.get(ACME, refs[0]!))).toBe(content);
    });

    it("stores the empty content", async () => {
      const ref = await store.put(ACME, "");
      expect(ref).toEqual({ digest: digestOf(""), bytes: 0 });
      expect((await store.get(ACME, ref)).byteLength).toBe(0);
    });

    it("keeps what it was given: changing the caller's array, or what get returned, changes nothing stored", async () => {
      const bytes = new TextEncoder().encode("original");
      const ref = await store.put(ACME, bytes);
      bytes.fill(0);
      const read = await store.get(ACME, ref);
      read.fill(0);
      expect(text(await store.get(ACME, ref))).toBe("original");
    });

    it("throws ARTIFACT_MISSING for a digest it never stored; has says false", async () => {
      const absent = digestOf("never put");
      await expect(store.get(ACME, absent)).rejects.toSatisfy((error) => YokeError.hasCode(error, "ARTIFACT_MISSING"));
      await expect(store.get(ACME, { digest: absent, bytes: 9 })).rejects.toSatisfy((error) => YokeError.hasCode(error, "ARTIFACT_MISSING"));
      expect(await store.has(ACME, absent)).toBe(false);
    });

    it("treats a malformed digest as absent: never a path, never another hash", async () => {
      await store.put(ACME, "something");
      for (const bad of ["sha256:../../../etc/passwd", `sha256:${"A".repeat(64)}`, "sha256:", "", `md5:${"a".repeat(32)}`, "a".repeat(64)]) {
        await expect(store.get(ACME, bad as `sha256:${string}`)).rejects.toSatisfy((error) => YokeError.hasCode(error, "ARTIFACT_MISSING"));
        expect(await store.has(ACME, bad as `sha256:${string}`)).toBe(false);
      }
    });

    it("keeps tenants apart: what one tenant put, another's get does not find and its has denies, even for the same bytes", async () => {
      const ref = await store.put(ACME, "acme's payroll", { mediaType: "text/plain" });
      await expect(store.get(GLOBEX, ref)).rejects.toSatisfy((error) => YokeError.hasCode(error, "ARTIFACT_MISSING"));
      await expect(store.get(GLOBEX, ref.digest)).rejects.toSatisfy((error) => YokeError.hasCode(error, "ARTIFACT_MISSING"));
      expect(await store.has(GLOBEX, ref)).toBe(false);
      // Tenant ids are compared exactly: no case folding, no trimming, no prefix.
      for (const tenantId of ["ACME", " acme", "acm", "acme/..", "acme\u0000", "../acme", "%61cme"]) {
        expect(await store.has({ tenantId }, ref.digest)).toBe(false);
        await expect(store.get({ tenantId }, ref)).rejects.toSatisfy((error) => YokeError.hasCode(error, "ARTIFACT_MISSING"));
      }
      // The same bytes put by the other tenant: the same ref, each reads its own copy, and a
      // loss of one tenant's copy leaves the other's.
      expect(await store.put(GLOBEX, "acme's payroll", { mediaType: "text/plain" })).toEqual(ref);
      expect(text(await store.get(GLOBEX, ref))).toBe("acme's payroll");
      expect(text(await store.get(ACME, ref))).toBe("acme's payroll");
      if (subject.remove !== undefined) {
        await subject.remove(GLOBEX, ref.digest);
        expect(await store.has(GLOBEX, ref)).toBe(false);
        expect(text(await store.get(ACME, ref))).toBe("acme's payroll");
      }
    });

    it("refuses a call that names no tenant with ARTIFACT_SCOPE_INVALID, never reading or writing for all tenants", async () => {
      const ref = await store.put(ACME, "scoped");
      for (const scope of [undefined, null, {}, { tenantId: "" }, { tenantId: 5 }, "acme"] as unknown as ArtifactScope[]) {
        await expect(store.put(scope, "unscoped")).rejects.toSatisfy((error) => YokeError.hasCode(error, "ARTIFACT_SCOPE_INVALID"));
        await expect(store.get(scope, ref)).rejects.toSatisfy((error) => YokeError.hasCode(error, "ARTIFACT_SCOPE_INVALID"));
        await expect(store.has(scope, ref)).rejects.toSatisfy((error) => YokeError.hasCode(error, "ARTIFACT_SCOPE_INVALID"));
      }
      expect(await store.has(ACME, digestOf("unscoped"))).toBe(false);
    });

    it("refuses content larger than its limit with TOOL_OUTPUT_TOO_LARGE, and accepts the limit exactly", async () => {
      const limited = await factory({ maxArtifactBytes: 1_024 });
      try {
        expect((await limited.store.put(ACME, "a".repeat(1_024))).bytes).toBe(1_024);
        const error = await limited.store.put(ACME, "é".repeat(513)).catch((caught: unknown) => caught);
        expect(YokeError.hasCode(error, "TOOL_OUTPUT_TOO_LARGE")).toBe(true);
        expect((error as YokeError).details).toMatchObject({ bytes: 1_026, maxArtifactBytes: 1_024 });
        expect(await limited.store.has(ACME, digestOf("é".repeat(513)))).toBe(false);
      } finally {
        await limited.cleanup?.();
      }
    });

    if (options.damage !== true) return;

    it("throws ARTIFACT_CORRUPT when the stored bytes no longer hash to their digest", async () => {
      const ref = await store.put(ACME, "the build log, line 1\n");
      await hook(subject.corrupt, "corrupt")(ACME, ref.digest);
      await expect(store.get(ACME, ref)).rejects.toSatisfy((error) => YokeError.hasCode(error, "ARTIFACT_CORRUPT"));
      // A put of the same content repairs it.
      expect(await store.put(ACME, "the build log, line 1\n")).toEqual({ digest: ref.digest, bytes: ref.bytes });
      expect(text(await store.get(ACME, ref))).toBe("the build log, line 1\n");
    });

    it("throws ARTIFACT_MISSING when the stored bytes were lost", async () => {
      const ref = await store.put(ACME, "kept for a while");
      await hook(subject.remove, "remove")(ACME, ref.digest);
      expect(await store.has(ACME, ref)).toBe(false);
      await expect(store.get(ACME, ref)).rejects.toSatisfy((error) => YokeError.hasCode(error, "ARTIFACT_MISSING"));
    });
  });
}
