import { YokeError, type JournalV1, type RunScope, type YokeErrorCode } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { eventDraft, runStartedDraft } from "./event-drafts.js";

/**
 * Ways to damage a stored journal behind its back. Each is something that happens to real
 * files: an operator's `DELETE`, a `-wal` removed or cut by a careless cleanup or a broken
 * disk, a file truncated by a full disk or a bad copy, a row forged or rows swapped by
 * someone who can write the file.
 */
export type TamperKind = "deleteTailRows" | "deleteWal" | "truncateWal" | "corruptWal" | "truncateFile" | "forgeRow" | "swapRows";

/**
 * A store under the tamper suite: how to open it at a location, how to take the image a
 * crash would leave, and the tampering it claims to detect. Leave out a kind the store does
 * not claim (a store without a write-ahead log has no `deleteWal`; an unkeyed chain cannot
 * tell a forged row with a correct SHA-256 from a real one).
 */
export interface TamperSubject {
  /** A new, unused location (a file path, a schema name). */
  location(): string;
  /** Opens the store at `location`, creating it when it does not exist. */
  open(location: string): Promise<JournalV1>;
  /** Makes what was appended so far part of the store's main file (a SQLite checkpoint), if it has such a step. */
  settle?(location: string, journal: JournalV1): Promise<void> | void;
  /** Copies the store, as a process killed at this moment would leave it, to a new location; the journal stays open. */
  crashImage(location: string): Promise<string> | string;
  /**
   * The tampering this store claims to detect. Each gets the location of a crash image whose
   * run `scope` has `length` events, appended as `appends` transactions of `lastAppend`
   * events at the end, and damages it.
   */
  readonly tamper: Partial<Record<TamperKind, (location: string, run: TamperedRun) => Promise<void> | void>>;
  /** Removes a location's files. */
  remove?(location: string): Promise<void> | void;
}

export interface TamperedRun {
  readonly scope: RunScope;
  readonly length: number;
  /** Events in the last append: the rows a lost commit takes with it. */
  readonly lastAppend: number;
}

/** The codes that count as detection: the store refused, or named what is wrong. */
const DETECTED: readonly YokeErrorCode[] = [
  "JOURNAL_TRUNCATED",
  "JOURNAL_WITNESS_INVALID",
  "JOURNAL_CHAIN_BROKEN",
  "JOURNAL_CORRUPT",
  "JOURNAL_NOT_INITIALIZED",
];

const APPENDS = 4;
const PER_APPEND = 3;

/**
 * Registers one test per tampering the subject claims: a run is written in four appends,
 * the first two settled into the main file, a crash image is taken and damaged, and then the
 * store must detect it — refuse to open with a typed error, or, if it opens, report the run
 * in `verify` (naming the first bad seq) and refuse to read it whole (what a resume does) —
 * never return a shorter or different run that verifies.
 *
 * @example
 * ```ts
 * import { describeJournalTamperSuite } from "@yoke/testkit/contracts";
 * describeJournalTamperSuite("my store", { location, open, crashImage, tamper: { deleteTailRows } });
 * ```
 */
export function describeJournalTamperSuite(name: string, subject: TamperSubject): void {
  describe(`journal tamper suite: ${name}`, () => {
    for (const [kind, damage] of Object.entries(subject.tamper) as [TamperKind, NonNullable<TamperSubject["tamper"][TamperKind]>][]) {
      it(`detects ${kind} on open, verify and a whole read`, async () => {
        const location = subject.location();
        const scope: RunScope = { tenantId: "tenant_tamper", runId: `run_${kind}` };
        const journal = await subject.open(location);
        let image: string;
        try {
          for (let append = 0; append < APPENDS; append++) {
            const drafts = Array.from({ length: PER_APPEND }, (_, index) => {
              const seq = append * PER_APPEND + index;
              return seq === 0 ? runStartedDraft() : eventDraft("test.noted", { seq, text: `event ${seq}` });
            });
            await journal.append(scope, append * PER_APPEND, drafts);
            if (append === 1) await subject.settle?.(location, journal);
          }
          expect(await journal.verify(scope)).toMatchObject({ ok: true, events: APPENDS * PER_APPEND });
          image = await subject.crashImage(location);
        } finally {
          await journal.close();
        }
        try {
          await damage(image, { scope, length: APPENDS * PER_APPEND, lastAppend: PER_APPEND });
          await expectDetected(subject, image, scope, APPENDS * PER_APPEND);
        } finally {
          await subject.remove?.(image);
          await subject.remove?.(location);
        }
      });
    }
  });
}

async function expectDetected(subject: TamperSubject, location: string, scope: RunScope, length: number): Promise<void> {
  let journal: JournalV1;
  try {
    journal = await subject.open(location);
  } catch (error) {
    expectDetectionError(error, "open");
    return;
  }
  try {
    const report = await journal.verify(scope);
    expect(report.ok, `verify accepted a damaged run: ${JSON.stringify(report)}`).toBe(false);
    if (!report.ok) {
      expect(report.firstBadSeq).toBeGreaterThanOrEqual(0);
      expect(report.firstBadSeq).toBeLessThanOrEqual(length);
    }
    let readError: unknown;
    try {
      for await (const event of journal.read(scope)) void event;
    } catch (error) {
      readError = error;
    }
    expectDetectionError(readError, "a whole read");
  } finally {
    await journal.close();
  }
}

function expectDetectionError(error: unknown, where: string): void {
  expect(YokeError.isInstance(error), `${where} did not fail with a YokeError: ${String(error)}`).toBe(true);
  expect(DETECTED, `${where} failed with ${(error as YokeError).code}: ${(error as YokeError).message}`).toContain((error as YokeError).code);
}
