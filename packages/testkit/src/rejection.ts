import { YokeError, type ModelStreamPart } from "@yoke/protocol";

/**
 * The `YokeError` a promise rejects with. Throws TESTKIT_EXPECTATION_FAILED if it resolves,
 * and rethrows anything else it rejects with, so a test asserting on a typed failure cannot
 * pass by accident.
 *
 * @example
 * ```ts
 * const error = await rejectionOf(journal.append(scope, 7, drafts));
 * expect(error.code).toBe("JOURNAL_CONFLICT");
 * ```
 */
export async function rejectionOf(promise: Promise<unknown>): Promise<YokeError> {
  try {
    await promise;
  } catch (error) {
    if (YokeError.isInstance(error)) return error;
    throw error;
  }
  throw new YokeError("TESTKIT_EXPECTATION_FAILED", "expected the promise to reject with a YokeError, but it resolved");
}

/**
 * Collects the parts an adapter streams: pass `onStreamPart` to `generate`, read `parts`.
 *
 * @example
 * ```ts
 * const stream = streamCollector();
 * await adapter.generate(request, { onStreamPart: stream.onStreamPart });
 * expect(stream.parts.at(-1)?.type).toBe("finish");
 * ```
 */
export function streamCollector(): { readonly parts: ModelStreamPart[]; readonly onStreamPart: (part: ModelStreamPart) => void } {
  const parts: ModelStreamPart[] = [];
  return { parts, onStreamPart: (part) => parts.push(part) };
}
