import {
  YokeError,
  type AppendResult,
  type EventDraft,
  type JournalEvent,
  type JournalHead,
  type JournalV1,
  type ReadOptions,
  type RunScope,
  type RunSummary,
  type VerifyResult,
} from "@yoke/protocol";
import { EMPTY_HEAD, chainError, checkEvent, conflictError, sealEvents } from "./chain.js";

/**
 * A journal in process memory: the reference implementation of `JournalV1` for tests.
 * Not durable (`capabilities.durable` is false). Events are stored frozen, as copies.
 *
 * @example
 * ```ts
 * const journal = createMemoryJournal();
 * await journal.append({ tenantId: "tenant_a", runId: "run_1" }, 0, [runStartedDraft]);
 * ```
 */
export function createMemoryJournal(): JournalV1 {
  const runs = new Map<string, JournalEvent[]>();
  let closed = false;
  // JSON keeps the pair unambiguous: a separator character could also occur inside an id.
  const key = (scope: RunScope) => JSON.stringify([scope.tenantId, scope.runId]);
  const ensureOpen = () => {
    if (closed) throw new YokeError("JOURNAL_CLOSED", "the memory journal is closed");
  };

  return {
    specificationVersion: "v1",
    capabilities: { durable: false, multiProcess: false },

    async append(scope, expectedSeq, drafts: readonly EventDraft[]): Promise<AppendResult> {
      ensureOpen();
      const events = runs.get(key(scope)) ?? [];
      if (expectedSeq !== events.length) throw conflictError(scope, expectedSeq, events.length);
      const last = events.at(-1);
      const head: JournalHead = last ? { length: events.length, hash: last.hash } : EMPTY_HEAD;
      const sealed = sealEvents(scope, head, drafts).map((event) => deepFreeze(structuredClone(event)));
      if (events.length === 0) runs.set(key(scope), events);
      events.push(...sealed);
      const tail = sealed.at(-1)!;
      return { lastSeq: tail.seq, headHash: tail.hash, events: sealed };
    },

    async *read(scope, options: ReadOptions = {}) {
      ensureOpen();
      const events = runs.get(key(scope)) ?? [];
      const from = options.fromSeq ?? 0;
      const to = Math.min(options.toSeq ?? events.length, events.length);
      for (let seq = from; seq < to; seq++) {
        const event = events[seq]!;
        const failure = checkEvent(scope, seq, seq === 0 ? EMPTY_HEAD.hash : events[seq - 1]!.hash, event);
        if (failure) throw chainError(scope, failure);
        yield event;
      }
    },

    async head(scope) {
      ensureOpen();
      const events = runs.get(key(scope));
      if (!events || events.length === 0) return null;
      return { length: events.length, hash: events.at(-1)!.hash };
    },

    async verify(scope): Promise<VerifyResult> {
      ensureOpen();
      const events = runs.get(key(scope)) ?? [];
      let prevHash = EMPTY_HEAD.hash;
      for (let seq = 0; seq < events.length; seq++) {
        const failure = checkEvent(scope, seq, prevHash, events[seq]);
        if (failure) return failure;
        prevHash = events[seq]!.hash;
      }
      return { ok: true, events: events.length, headHash: prevHash };
    },

    async *listRuns(tenantId): AsyncIterable<RunSummary> {
      ensureOpen();
      const summaries = [...runs.values()]
        .filter((events) => events[0]?.tenantId === tenantId)
        .map((events) => ({
          tenantId,
          runId: events[0]!.runId,
          length: events.length,
          firstAt: events[0]!.at,
          lastAt: events.at(-1)!.at,
        }))
        .sort((a, b) => (a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0));
      yield* summaries;
    },

    async close() {
      closed = true;
    },
  };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}
