import { YokeError, type EventDraft, type JournalEvent } from "@yoke/protocol";
import fc from "fast-check";
import { expect } from "vitest";
import { describe, it } from "./contract-recorder.js";
import { eventBatchArbitrary, runStartedDraftArbitrary } from "./event-arbitraries.js";
import { eventDraft, runStartedDraft } from "./event-drafts.js";
import { collect, expectChain, expectYokeError, runIdSource, scopeOf, type StoreContext } from "./journal-contract-support.js";

type Command =
  | { readonly kind: "append"; readonly batch: EventDraft[] }
  | { readonly kind: "stale"; readonly offset: number }
  | { readonly kind: "invalid"; readonly variant: "empty" | "restart" | "malformed" };

const commandArbitrary: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constant("append" as const), batch: eventBatchArbitrary({ startsRun: false, maxLength: 3 }) }),
  fc.record({ kind: fc.constant("stale" as const), offset: fc.integer({ min: -3, max: 3 }).filter((offset) => offset !== 0) }),
  fc.record({ kind: fc.constant("invalid" as const), variant: fc.constantFrom("empty" as const, "restart" as const, "malformed" as const) }),
);

export function describeJournalProperties(context: StoreContext, settings: { readonly numRuns: number }): void {
  const { numRuns } = settings;

  describe("properties", () => {
    it("round-trips any sequence of valid batches exactly", async () => {
      const nextRunId = runIdSource("round_trip");
      await fc.assert(
        fc.asyncProperty(
          eventBatchArbitrary({ startsRun: true }),
          fc.array(eventBatchArbitrary({ startsRun: false }), { maxLength: 3 }),
          async (first, rest) => {
            const scope = scopeOf(nextRunId());
            const drafts: EventDraft[] = [];
            const returned: JournalEvent[] = [];
            for (const batch of [first, ...rest]) {
              const result = await context.journal.append(scope, drafts.length, batch);
              drafts.push(...batch);
              returned.push(...result.events);
            }
            const events = await collect(context.journal.read(scope));
            expectChain(scope, events, drafts);
            expect(events).toEqual(returned);
          },
        ),
        { numRuns },
      );
    });

    it("gives racing writers exactly one winner per sequence number and a gapless log", async () => {
      const nextRunId = runIdSource("race");
      const writers = (batch: fc.Arbitrary<EventDraft[]>) => fc.array(batch, { minLength: 2, maxLength: 8 });
      await fc.assert(
        fc.asyncProperty(
          writers(runStartedDraftArbitrary().map((draft) => [draft])),
          fc.array(writers(eventBatchArbitrary({ startsRun: false, maxLength: 3 })), { maxLength: 3 }),
          async (starters, rounds) => {
            const scope = scopeOf(nextRunId());
            const log: EventDraft[] = [];
            for (const batches of [starters, ...rounds]) {
              const expectedSeq = log.length;
              const outcomes = await Promise.allSettled(batches.map((batch) => context.journal.append(scope, expectedSeq, batch)));
              const winners = outcomes.flatMap((outcome, index) => (outcome.status === "fulfilled" ? [index] : []));
              expect(winners).toHaveLength(1);
              for (const outcome of outcomes) {
                if (outcome.status === "rejected") expect(YokeError.hasCode(outcome.reason, "JOURNAL_CONFLICT")).toBe(true);
              }
              log.push(...(batches[winners[0] as number] as EventDraft[]));
            }
            expectChain(scope, await collect(context.journal.read(scope)), log);
            expect(await context.journal.verify(scope)).toMatchObject({ ok: true, events: log.length });
          },
        ),
        { numRuns },
      );
    });

    it("verifies after any mix of appends, conflicts and rejected batches", async () => {
      const nextRunId = runIdSource("mixed");
      await fc.assert(
        fc.asyncProperty(fc.array(commandArbitrary, { maxLength: 10 }), async (commands) => {
          const scope = scopeOf(nextRunId());
          const log: EventDraft[] = [runStartedDraft()];
          let headHash = (await context.journal.append(scope, 0, log)).headHash;
          for (const command of commands) {
            if (command.kind === "append") {
              headHash = (await context.journal.append(scope, log.length, command.batch)).headHash;
              log.push(...command.batch);
            } else if (command.kind === "stale") {
              const expectedSeq = log.length + command.offset < 0 ? log.length + 1 : log.length + command.offset;
              await expectYokeError(context.journal.append(scope, expectedSeq, [eventDraft("test.noted")]), "JOURNAL_CONFLICT");
            } else {
              const batch = {
                empty: [],
                restart: [runStartedDraft()],
                malformed: [eventDraft("test.noted"), { type: "test.noted", at: -1, data: {} }],
              }[command.variant];
              await expectYokeError(context.journal.append(scope, log.length, batch), "JOURNAL_INVALID_APPEND");
            }
          }
          expect(await context.journal.verify(scope)).toMatchObject({ ok: true, events: log.length, headHash });
          expect(await context.journal.head(scope)).toEqual({ length: log.length, hash: headHash });
          expectChain(scope, await collect(context.journal.read(scope)), log);
        }),
        { numRuns },
      );
    });
  });
}
