// maxEventBytes: every store refuses an event whose canonical JSON (envelope, data and hash)
// is larger than its limit with JOURNAL_EVENT_TOO_LARGE, writing nothing of the append; the
// limit counts UTF-8 bytes, exactly (an event of exactly the limit is accepted).
import { canonicalJson, type JournalEvent, type JournalV1, type RunScope } from "@yoke/protocol";
import { eventDraft, rejectionOf, runStartedDraft } from "@yoke/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { tempDirectoryPerTest } from "./__fixtures__/temp-files.js";
import { DEFAULT_MAX_EVENT_BYTES } from "./event-size.js";
import { createMemoryJournal } from "./memory-journal.js";
import { createSqliteJournal } from "./sqlite-journal.js";

const scope: RunScope = { tenantId: "tenant_a", runId: "run_1" };
const directory = tempDirectoryPerTest("yoke-event-size-");
const bytesOf = (event: JournalEvent) => Buffer.byteLength(canonicalJson(event), "utf8");

const STORES: readonly [string, (maxEventBytes?: number) => Promise<JournalV1>][] = [
  ["memory", async (maxEventBytes) => createMemoryJournal(maxEventBytes === undefined ? {} : { maxEventBytes })],
  [
    "sqlite",
    async (maxEventBytes) =>
      createSqliteJournal({
        filename: directory.file(`journal-${Math.random()}.db`),
        synchronous: "normal",
        ...(maxEventBytes === undefined ? {} : { maxEventBytes }),
      }),
  ],
];

describe.each(STORES)("maxEventBytes (%s journal)", (_name, open) => {
  it("accepts an event of exactly the limit and refuses one byte more, counting UTF-8 bytes; nothing of a refused append is written", async () => {
    // The size of a `test.noted` event at seq 1 whose pad is n ASCII characters: base + n.
    const probe = createMemoryJournal({ maxEventBytes: Number.MAX_SAFE_INTEGER });
    await probe.append(scope, 0, [runStartedDraft()]);
    const [sample] = (await probe.append(scope, 1, [eventDraft("test.noted", { pad: "" })])).events;
    const base = bytesOf(sample!);
    const limit = base + 1_000;
    const journal = await open(limit);
    try {
      await journal.append(scope, 0, [runStartedDraft()]);
      const over = await rejectionOf(journal.append(scope, 1, [eventDraft("test.noted", { pad: "" }), eventDraft("test.noted", { pad: "x".repeat(1_001) })]));
      expect(over.code).toBe("JOURNAL_EVENT_TOO_LARGE");
      expect(over.details).toEqual({ tenantId: "tenant_a", runId: "run_1", seq: 2, type: "test.noted", bytes: limit + 1, maxEventBytes: limit, index: 1 });
      expect(over.retryable).toBe(false);
      expect(await journal.head(scope)).toMatchObject({ length: 1 });
      // 500 two-byte characters are 500 UTF-16 units but 1,000 bytes: fits exactly; one more unit does not.
      const exact = await journal.append(scope, 1, [eventDraft("test.noted", { pad: "é".repeat(500) })]);
      expect(bytesOf(exact.events[0]!)).toBe(limit);
      const multiByte = await rejectionOf(journal.append(scope, 2, [eventDraft("test.noted", { pad: `${"é".repeat(500)}x` })]));
      expect([multiByte.code, multiByte.details.bytes]).toEqual(["JOURNAL_EVENT_TOO_LARGE", limit + 1]);
      // The envelope counts too: a long causation id pushes an event of the same data over.
      const envelope = await rejectionOf(journal.append(scope, 2, [eventDraft("test.noted", { pad: "x".repeat(990) }, { causationId: "c".repeat(20) })]));
      expect(envelope.code).toBe("JOURNAL_EVENT_TOO_LARGE");
      const read: JournalEvent[] = [];
      for await (const event of journal.read(scope)) read.push(event);
      expect(read.map((event) => event.seq)).toEqual([0, 1]);
      expect(await journal.verify(scope)).toMatchObject({ ok: true, events: 2 });
    } finally {
      await journal.close();
    }
  });

  it("defaults to DEFAULT_MAX_EVENT_BYTES (8 MiB): a 9 MiB event is refused, a 1 MiB one is not", async () => {
    expect(DEFAULT_MAX_EVENT_BYTES).toBe(8 * 1024 * 1024);
    const journal = await open();
    try {
      await journal.append(scope, 0, [runStartedDraft()]);
      const refused = await rejectionOf(journal.append(scope, 1, [eventDraft("test.noted", { pad: "x".repeat(9 * 1024 * 1024) })]));
      expect([refused.code, refused.details.maxEventBytes]).toEqual(["JOURNAL_EVENT_TOO_LARGE", DEFAULT_MAX_EVENT_BYTES]);
      await journal.append(scope, 1, [eventDraft("test.noted", { pad: "x".repeat(1024 * 1024) })]);
      expect(await journal.head(scope)).toMatchObject({ length: 2 });
    } finally {
      await journal.close();
    }
  });

  it("an option that is not a positive integer is CONFIG_INVALID", async () => {
    for (const bad of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      const error = await rejectionOf(open(bad));
      expect([error.code, error.details.option], String(bad)).toEqual(["CONFIG_INVALID", "maxEventBytes"]);
    }
  });
});

describe("maxEventBytes (property)", () => {
  it("an append succeeds exactly when every event's canonical JSON fits the limit", async () => {
    const text = fc.string({ unit: "binary", maxLength: 300 });
    await fc.assert(
      fc.asyncProperty(
        fc.array(text, { minLength: 1, maxLength: 3 }),
        fc.option(text, { nil: undefined }),
        fc.integer({ min: 200, max: 1_400 }),
        async (pads, cause, limit) => {
          const unbounded = createMemoryJournal({ maxEventBytes: Number.MAX_SAFE_INTEGER });
          const bounded = createMemoryJournal({ maxEventBytes: limit });
          const drafts = pads.map((pad) => eventDraft("test.noted", { pad }, cause === undefined ? {} : { causationId: cause }));
          const started = [runStartedDraft()];
          const fits = (await unbounded.append(scope, 0, started)).events.every((event) => bytesOf(event) <= limit);
          const sizes = (await unbounded.append(scope, 1, drafts)).events.map(bytesOf);
          const outcome = await bounded.append(scope, 0, [...started, ...drafts]).then(
            () => "appended",
            (error: { code?: string }) => error.code,
          );
          expect(outcome).toBe(fits && sizes.every((size) => size <= limit) ? "appended" : "JOURNAL_EVENT_TOO_LARGE");
        },
      ),
      { numRuns: 300 },
    );
  });
});
