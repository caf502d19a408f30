// Where the full text of each tool output a request shows cut is kept — inline in its tool
// event, or in the artifact store — and the checks that it is still there, intact.
import { sha256Hex, toolResultText, type Manifest, type SourceMessage } from "@yoke/context-compiler";
import { YokeError, type ArtifactRef, type ArtifactScope, type ArtifactStoreV2, type YokeErrorDetailsByCode } from "@yoke/protocol";

function mismatch(message: string, details: YokeErrorDetailsByCode["REQUEST_MISMATCH"]): YokeError {
  return new YokeError("REQUEST_MISMATCH", message, { details });
}

/** A tool output shown cut, and where its whole text is kept. */
export interface CutOutput {
  readonly itemId: string;
  /** Index of the tool-result part in its message. */
  readonly part: number;
  /** The event the message came from. */
  readonly seq: number;
  /** The earlier run of the session the message came from (event `seq` there); absent: this run. */
  readonly runId?: string;
  readonly originalBytes: number;
  readonly keptBytes: number;
  /** SHA-256 (hex) the request's note names: of the full text, or the artifact's digest. */
  readonly artifactHash: string;
  /** The whole result, out of line. Absent: the full text is inline in event `seq`. */
  readonly artifact?: ArtifactRef;
}

/**
 * Where the full text of each cut tool output is, checked: an inline text must hash to the
 * hash the manifest names, an out-of-line one must be the artifact it names (REQUEST_MISMATCH
 * naming the event otherwise).
 */
export function cutOutputsOf(
  manifest: Manifest,
  transcript: readonly SourceMessage[],
  sourceSeqs: ReadonlyMap<string, number>,
  earlier?: ReadonlyMap<string, { readonly runId: string }>,
): CutOutput[] {
  const messages = new Map(transcript.map((entry) => [entry.id, entry.message]));
  const outputs: CutOutput[] = [];
  for (const item of manifest.items) {
    const message = messages.get(item.id);
    if (item.truncations === undefined || message?.role !== "tool") continue;
    const seq = sourceSeqs.get(item.id)!;
    for (const cut of item.truncations) {
      const result = message.content[cut.part]?.result;
      const artifact = result?.truncation?.artifact;
      const actual = result === undefined ? "none" : artifact !== undefined ? artifact.digest.slice("sha256:".length) : sha256Hex(toolResultText(result));
      if (actual !== cut.artifactHash) {
        throw mismatch(
          `event ${seq}: the full text of tool output ${item.id}#${cut.part} is ${artifact === undefined ? "" : "artifact "}sha256:${actual}, not the sha256:${cut.artifactHash} the request names`,
          {
            seq,
            itemId: item.id,
            part: cut.part,
            expected: cut.artifactHash,
            actual,
          },
        );
      }
      const { part, originalBytes, keptBytes, artifactHash } = cut;
      const runId = earlier?.get(item.id)?.runId;
      outputs.push({
        itemId: item.id,
        part,
        seq,
        ...(runId === undefined ? {} : { runId }),
        originalBytes,
        keptBytes,
        artifactHash,
        ...(artifact === undefined ? {} : { artifact }),
      });
    }
  }
  return outputs;
}

/** What `reconstructRequest` may use besides the journal. */
export interface ReconstructOptions {
  /**
   * Which request of the turn (0, the default, is the first): a turn asks again after
   * `max_tokens`, `pause` or a cut tool call, and each of those requests is journaled too.
   */
  readonly requestInTurn?: number;
  /**
   * The artifact store the run put its large tool outputs in. Required when the turn shows an
   * output stored out of line: each is read back, as the run's tenant, and verified
   * (ARTIFACT_MISSING, ARTIFACT_CORRUPT, naming the event that references it).
   */
  readonly artifacts?: ArtifactStoreV2;
}

/** Checks that the store holds, intact, every output `reconstructed` shows out of line. */
export async function verifyOutOfLine(
  reconstructed: { readonly cutOutputs: readonly CutOutput[] },
  store: ArtifactStoreV2 | undefined,
  scope: ArtifactScope,
): Promise<void> {
  for (const output of reconstructed.cutOutputs) {
    if (output.artifact === undefined) continue;
    const { digest } = output.artifact;
    const where = { seq: output.seq, itemId: output.itemId, part: output.part, digest };
    if (store === undefined) {
      throw new YokeError(
        "ARTIFACT_MISSING",
        `event ${output.seq} references artifact ${digest}, and no artifact store was given to look it up in (options.artifacts)`,
        { details: where },
      );
    }
    let bytes: Uint8Array;
    try {
      bytes = await store.get(scope, output.artifact);
    } catch (error) {
      if (YokeError.hasCode(error, "ARTIFACT_MISSING") || YokeError.hasCode(error, "ARTIFACT_CORRUPT")) {
        throw new YokeError(error.code, `event ${output.seq} references artifact ${digest}: ${error.message}`, {
          details: { ...error.details, ...where },
          cause: error,
        });
      }
      throw error;
    }
    if (bytes.byteLength !== output.artifact.bytes) {
      throw new YokeError(
        "ARTIFACT_CORRUPT",
        `event ${output.seq} references artifact ${digest} of ${output.artifact.bytes} bytes; the store holds ${bytes.byteLength}`,
        { details: where },
      );
    }
  }
}
