import { KeyObject, createPrivateKey, createPublicKey, sign, verify } from "node:crypto";
import { YokeError, canonicalJson, type JournalV1, type RunScope } from "@yoke/protocol";
import { chainError } from "./chain.js";

/** The first line of every signed checkpoint message; a new message layout gets a new one. */
export const CHECKPOINT_MESSAGE_VERSION = "yoke.journal.checkpoint.v1";

/**
 * A signed statement that run `runId` of `tenantId` had, at sequence number `seq`, the event
 * whose hash is `headHash`. Kept by the caller outside the journal (another system, a
 * transparency log, a backup): with the public key, `verifyCheckpoint` then proves that no
 * event up to `seq` was changed, removed or reordered since, and that the run still has at
 * least `seq + 1` events. It says nothing about events after `seq`.
 *
 * @example
 * ```ts
 * const { privateKey, publicKey } = generateKeyPairSync("ed25519");
 * const checkpoint = await signCheckpoint(journal, scope, privateKey, { keyId: "cp-2025" });
 * await writeFile("run_1.checkpoint.json", JSON.stringify(checkpoint));
 * // later, before trusting the run:
 * const verdict = await verifyCheckpoint(journal, scope, checkpoint, publicKey);
 * if (!verdict.ok) throw new YokeError("JOURNAL_CHAIN_BROKEN", `run altered at or before seq ${verdict.seq}: ${verdict.reason}`);
 * ```
 */
export interface JournalCheckpoint {
  readonly version: 1;
  readonly tenantId: string;
  readonly runId: string;
  /** Sequence number of the last event the checkpoint covers. */
  readonly seq: number;
  /** That event's hash (SHA-256 or `hmac-sha256:<keyId>:<hex>`, as the journal stores it). */
  readonly headHash: string;
  /** Base64 Ed25519 signature over `checkpointMessage(checkpoint)`. */
  readonly signature: string;
  /** The signing key's id, when the signer gave one (signed too). */
  readonly keyId?: string;
}

/** An Ed25519 key as a `KeyObject`, or PEM text. */
export type CheckpointKey = KeyObject | string;

/** What `verifyCheckpoint` found. `seq` names the sequence number the failure is about. */
export type CheckpointVerdict =
  | { readonly ok: true; readonly seq: number; readonly headHash: string }
  | {
      readonly ok: false;
      /**
       * - `malformed`: the checkpoint is not a version-1 checkpoint;
       * - `scope_mismatch`: it is about another run or tenant;
       * - `signature_invalid`: the signature does not verify under the key (forged or altered checkpoint);
       * - `chain_broken`: an event at or before the checkpoint fails the journal's own checks (`seq` is that event);
       * - `truncated`: the run has fewer than `seq + 1` events now (`seq` is the first missing one);
       * - `head_mismatch`: the chain is consistent but event `seq` is not the one signed: the run was rewritten at or before `seq`.
       */
      readonly reason: "malformed" | "scope_mismatch" | "signature_invalid" | "chain_broken" | "truncated" | "head_mismatch";
      readonly seq: number;
      readonly message: string;
    };

/**
 * The bytes a checkpoint signature covers: UTF-8 of `yoke.journal.checkpoint.v1`, a line
 * feed, then the canonical JSON (keys sorted, no whitespace) of
 * `{ headHash, keyId, runId, seq, tenantId }`, with `keyId: null` when there is none.
 *
 * @example
 * ```ts
 * checkpointMessage({ tenantId: "t", runId: "r", seq: 3, headHash: "ab…" }).toString();
 * // 'yoke.journal.checkpoint.v1\n{"headHash":"ab…","keyId":null,"runId":"r","seq":3,"tenantId":"t"}'
 * ```
 */
export function checkpointMessage(checkpoint: Pick<JournalCheckpoint, "tenantId" | "runId" | "seq" | "headHash" | "keyId">): Buffer {
  const body = canonicalJson({
    headHash: checkpoint.headHash,
    keyId: checkpoint.keyId ?? null,
    runId: checkpoint.runId,
    seq: checkpoint.seq,
    tenantId: checkpoint.tenantId,
  });
  return Buffer.from(`${CHECKPOINT_MESSAGE_VERSION}\n${body}`, "utf8");
}

/**
 * Verifies the run's whole chain (`journal.verify`) and signs its head with an Ed25519
 * private key. A run that fails verification is not signed (JOURNAL_CHAIN_BROKEN /
 * JOURNAL_CORRUPT naming the seq); an empty run is RUN_NOT_FOUND.
 */
export async function signCheckpoint(
  journal: JournalV1,
  scope: RunScope,
  privateKey: CheckpointKey,
  options: { readonly keyId?: string } = {},
): Promise<JournalCheckpoint> {
  const key = ed25519Key(privateKey, "private");
  if (options.keyId !== undefined && typeof options.keyId !== "string") {
    throw new YokeError("CONFIG_INVALID", "signCheckpoint: keyId must be a string");
  }
  const verified = await journal.verify(scope);
  if (!verified.ok) throw chainError(scope, verified);
  if (verified.events === 0) {
    throw new YokeError("RUN_NOT_FOUND", `run ${scope.runId} has no events to checkpoint`, {
      details: { tenantId: scope.tenantId, runId: scope.runId },
    });
  }
  const unsigned = {
    tenantId: scope.tenantId,
    runId: scope.runId,
    seq: verified.events - 1,
    headHash: verified.headHash,
    ...(options.keyId === undefined ? {} : { keyId: options.keyId }),
  };
  const signature = sign(null, checkpointMessage(unsigned), key).toString("base64");
  return { version: 1, ...unsigned, signature };
}

/**
 * Checks a checkpoint against the journal: its signature under the Ed25519 public key, then
 * the run's events `0…seq` as `journal.read` verifies them, then that event `seq` still has
 * the signed hash. Returns a verdict; throws only what the journal throws for other reasons
 * (JOURNAL_CLOSED, JOURNAL_KEY_UNAVAILABLE, JOURNAL_UNAVAILABLE) and CONFIG_INVALID for a
 * key that is not Ed25519.
 */
export async function verifyCheckpoint(
  journal: JournalV1,
  scope: RunScope,
  checkpoint: JournalCheckpoint,
  publicKey: CheckpointKey,
): Promise<CheckpointVerdict> {
  const key = ed25519Key(publicKey, "public");
  const shapeProblem = malformed(checkpoint);
  if (shapeProblem !== undefined) {
    const seq = Number.isSafeInteger(checkpoint?.seq) ? checkpoint.seq : 0;
    return { ok: false, reason: "malformed", seq, message: shapeProblem };
  }
  const { seq, headHash } = checkpoint;
  if (checkpoint.tenantId !== scope.tenantId || checkpoint.runId !== scope.runId) {
    return { ok: false, reason: "scope_mismatch", seq, message: `the checkpoint is for run ${checkpoint.runId} of tenant ${checkpoint.tenantId}` };
  }
  if (!signatureVerifies(checkpoint, key)) {
    return { ok: false, reason: "signature_invalid", seq, message: "the signature does not verify under this key" };
  }
  let events = 0;
  let lastHash: string | undefined;
  try {
    for await (const event of journal.read(scope, { toSeq: seq + 1 })) {
      events++;
      lastHash = event.hash;
    }
  } catch (error) {
    if (!YokeError.hasCode(error, "JOURNAL_CHAIN_BROKEN") && !YokeError.hasCode(error, "JOURNAL_CORRUPT")) throw error;
    const details = error.details as { seq?: unknown } | undefined;
    const badSeq = typeof details?.seq === "number" ? details.seq : events;
    return { ok: false, reason: "chain_broken", seq: badSeq, message: error.message };
  }
  if (events < seq + 1) {
    return { ok: false, reason: "truncated", seq: events, message: `the run has ${events} events; the checkpoint covers ${seq + 1}` };
  }
  if (lastHash !== headHash) {
    return { ok: false, reason: "head_mismatch", seq, message: `event ${seq} is not the event the checkpoint signed: the run was rewritten at or before it` };
  }
  return { ok: true, seq, headHash };
}

function signatureVerifies(checkpoint: JournalCheckpoint, key: KeyObject): boolean {
  try {
    return verify(null, checkpointMessage(checkpoint), key, Buffer.from(checkpoint.signature, "base64"));
  } catch {
    return false;
  }
}

function malformed(checkpoint: JournalCheckpoint): string | undefined {
  if (typeof checkpoint !== "object" || checkpoint === null) return "not an object";
  if (checkpoint.version !== 1) return `unknown checkpoint version ${String(checkpoint.version)}`;
  if (typeof checkpoint.tenantId !== "string" || typeof checkpoint.runId !== "string") return "tenantId and runId must be strings";
  if (!Number.isSafeInteger(checkpoint.seq) || checkpoint.seq < 0) return "seq must be a non-negative integer";
  if (typeof checkpoint.headHash !== "string" || typeof checkpoint.signature !== "string") return "headHash and signature must be strings";
  if (checkpoint.keyId !== undefined && typeof checkpoint.keyId !== "string") return "keyId must be a string when present";
  return undefined;
}

function ed25519Key(key: CheckpointKey, kind: "private" | "public"): KeyObject {
  let object: KeyObject;
  try {
    if (key instanceof KeyObject) object = kind === "public" && key.type === "private" ? createPublicKey(key) : key;
    else object = kind === "private" ? createPrivateKey(key) : createPublicKey(key);
  } catch (error) {
    throw new YokeError("CONFIG_INVALID", `checkpoint ${kind} key is not a usable key: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  if (object.type !== kind || object.asymmetricKeyType !== "ed25519") {
    throw new YokeError("CONFIG_INVALID", `a checkpoint ${kind} key must be an Ed25519 ${kind} key, got ${object.type} ${String(object.asymmetricKeyType)}`);
  }
  return object;
}
