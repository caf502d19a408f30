import { YokeError, type EventDraft, type JournalEvent, type JournalV1, type RunScope } from "@yoke/protocol";
import { INTERRUPT_INBOX_SUFFIX } from "../interrupts.js";
import { firstDifference } from "./first-difference.js";
import { SCHEMA_ADDITIONS, type SchemaAddition } from "./schema-additions.js";
import type { RecordedRun } from "./recorded-run.js";
import type { WorldBefore } from "./recorded-world.js";

// The marker of a stop replay causes on purpose: the recorded process died here.
const CRASHES = new WeakSet<object>();

/** Whether `error` is the stop replay raised where the record has no answer (the recorded process died there). */
export function isReplayCrash(error: unknown): boolean {
  return typeof error === "object" && error !== null && CRASHES.has(error);
}

/**
 * What a replay shares among its parts: the recorded streams, the replay journal (a fresh
 * store the current code writes to, each append compared with the record as it lands), which
 * stream the code works on now, and whether the replayed process "crashed" (asked for what the
 * record does not have) or diverged.
 */
export class ReplayTape {
  readonly recorded: RecordedRun;
  readonly store: JournalV1;
  /** The stream the code last appended to or read: the clock reads the time of its next event. */
  active: string;
  crashed = false;
  /** Which harness (process) drives the run now: 1, then one more per resume after a recorded death. */
  process = 0;
  /** The latest time the harness call under way may read: the record's time before the caller's next act (a later call's time never leaks into this one). */
  ceiling = Number.POSITIVE_INFINITY;
  /** `<stream>:<seq>` of the model answer last served: the clock moves to its time once it is. */
  answered = "";
  /**
   * The recorded time an outside answer arrived (tool outcomes served to a batch): the clock
   * reads it until the next append, so every event built from those outcomes, in whatever
   * transaction, is stamped when the record says they came back.
   */
  present: number | undefined;
  /** The signal of the harness call under way: aborted where the recorded caller gave up. */
  caller = new AbortController();
  divergence: YokeError | undefined;
  /** Streams that existed before the run and that it only reads (its session's earlier runs): never the active stream, never reported as replayed. */
  readonly given = new Set<string>();
  /** Whether the run is started in its recorded session again. */
  joinsSession = false;
  /** The harness's timers: none fires by itself (the record says what happened in time); the inbox watch is fired on cue. */
  readonly timers = new ReplayTimers();
  /** Set while a model call the record shows cancelled by an interrupt is in flight: that cancel may be delivered now. */
  midCall = false;
  /**
   * The controllers of the model calls in flight, per run, of every harness replay built (a
   * run's and each subagent child's: `HarnessDeps.interrupts.live`; a dead process's hold none).
   */
  readonly live = new Set<Map<string, Set<AbortController>>>();
  /** The recorded ids the replayed processes draw from (`recordedIds`: what a stopped process drew goes back unless an append kept it). */
  ids: { settle(): void; giveBack(): void } | undefined;
  readonly #delivered = new Map<string, number>();
  readonly #lengths = new Map<string, number>();

  /** Fields today's code journals that an older record may lack (compatible only when declared here). */
  readonly additions: readonly SchemaAddition[];

  constructor(recorded: RecordedRun, store: JournalV1, additions: readonly SchemaAddition[] = SCHEMA_ADDITIONS) {
    this.recorded = recorded;
    this.store = store;
    this.additions = additions;
    this.active = recorded.scope.runId;
  }

  events(runId: string): readonly JournalEvent[] {
    return this.recorded.streams.get(runId) ?? [];
  }

  /** Puts what the journal held before the run into the replay journal (the world the run read), as recorded. */
  async seed(world: WorldBefore): Promise<void> {
    const { tenantId } = this.recorded.scope;
    for (const [runId, events] of world.streams) {
      await this.store.append(
        { tenantId, runId },
        0,
        events.map(({ type, at, causationId, data }) => ({ type, at, causationId, data })),
      );
      this.#lengths.set(runId, events.length);
    }
    for (const runId of world.given) this.given.add(runId);
    this.joinsSession = world.joinsSession;
  }

  /** How many events the replay journal holds for `runId`. */
  lengthOf(runId: string): number {
    return this.#lengths.get(runId) ?? 0;
  }

  /** The recorded event the replay journal of `runId` will append next. */
  next(runId: string, length: number): JournalEvent | undefined {
    return this.events(runId)[length];
  }

  /**
   * Aborts the call's signal when the record shows its caller gave up in the step under way:
   * the run ends `cancelled` before any further model call, and no interrupt cancelled it.
   */
  cancelIfRecorded(): boolean {
    const events = this.events(this.active);
    for (const event of events.slice(this.lengthOf(this.active))) {
      if (CALLER_CANCEL_ENDS.has(event.type)) return false;
      if (event.type === "interrupt.landed" && (event.data as { kind: string }).kind === "cancel") return false;
      if (event.type !== "run.completed") continue;
      const outcome = (event.data as { outcome: { status: string; reason?: string } }).outcome;
      if (outcome.status !== "cancelled") return false;
      this.caller.abort(new YokeError("CANCELLED", outcome.reason ?? "cancelled"));
      return true;
    }
    return false;
  }

  /** Subagent runs the recorded process died in: each stops at its first call for an outside answer. */
  readonly doomed = new Set<string>();

  crashIfDoomed(): void {
    if (this.doomed.delete(this.active)) this.crash(`the recorded process died while subagent ${this.active} ran`);
  }

  /** Stops the replayed process: every later append of this harness fails, as a dead process writes nothing. */
  crash(reason: string): never {
    this.crashed = true;
    this.ids?.giveBack();
    // What the dead process was answered at is not the next process's time.
    this.present = undefined;
    throw this.crashError(reason);
  }

  crashError(reason: string): YokeError {
    const error = new YokeError("REPLAY_UNSUPPORTED", `replay: the recorded process stopped here (${reason})`, { details: { reason: "recorded_stop" } });
    CRASHES.add(error);
    return error;
  }

  /** Compares appended events with the record; the first difference becomes the replay's divergence. */
  check(appended: readonly JournalEvent[]): void {
    this.present = undefined;
    this.ids?.settle();
    for (const event of appended) {
      this.#lengths.set(event.runId, Math.max(this.lengthOf(event.runId), event.seq + 1));
      const recorded = this.events(event.runId)[event.seq];
      const difference =
        recorded === undefined ? { path: "type", recorded: undefined, replayed: event.type } : firstDifference(recorded, event, this.additions);
      if (difference === null) continue;
      const type = recorded?.type ?? event.type;
      const shown = (value: unknown) => (value === undefined ? "nothing" : JSON.stringify(value));
      this.divergence = new YokeError(
        "REPLAY_DIVERGED",
        `run ${event.runId} diverged at event ${event.seq} (${type}): ${difference.path} was ${shown(difference.recorded)}, replay gave ${shown(difference.replayed)}`,
        {
          details: {
            tenantId: event.tenantId,
            runId: event.runId,
            seq: event.seq,
            type,
            path: difference.path,
            recorded: difference.recorded,
            replayed: difference.replayed,
          },
        },
      );
      throw this.divergence;
    }
  }

  /**
   * The recorded interrupt requests of `runId`'s inbox the replayed run may see now: each one
   * the record landed in the run's next events (no model answer or tool outcome between).
   */
  async deliverInterrupts(inbox: RunScope): Promise<void> {
    const owner = inbox.runId.slice(0, -INTERRUPT_INBOX_SUFFIX.length);
    const recordedInbox = this.events(inbox.runId);
    if (recordedInbox.length === 0) return;
    const head = await this.store.head({ tenantId: inbox.tenantId, runId: owner });
    const length = head?.length ?? 0;
    const run = this.events(owner);
    let upTo = this.#delivered.get(inbox.runId) ?? 0;
    for (let seq = Math.max(upTo, 1); seq < recordedInbox.length; seq += 1) {
      const landed = run.findIndex((event) => event.type === "interrupt.landed" && (event.data as { inboxSeq: number }).inboxSeq === seq);
      if (landed < length) {
        if (landed === -1) break;
        upTo = seq + 1;
        continue;
      }
      const between = run.slice(length, landed);
      // A call cut by this cancel: its failure is the cancel's doing, not an answer before it.
      const cutBy = (event: JournalEvent) => this.midCall && event.type === "model.failed" && (event.data as { code: string }).code === "CANCELLED";
      // An answer already served is folded into the transaction the boundary reads the inbox in: not before it.
      const served = (event: JournalEvent) => `${owner}:${event.seq}` === this.answered;
      if (between.some((event) => STEP_ENDS.has(event.type) && !cutBy(event) && !served(event))) break;
      // Read here, a request lands before the next model call is asked: one landing after a call was read later.
      if (between.some((event) => event.type === "model.requested")) break;
      upTo = seq + 1;
    }
    const already = (await this.store.head(inbox))?.length ?? 0;
    if (upTo > already) {
      const drafts: EventDraft[] = recordedInbox.slice(already, upTo).map(({ type, at, causationId, data }) => ({ type, at, causationId, data }));
      await this.store.append(inbox, already, drafts);
    }
    this.#delivered.set(inbox.runId, upTo);
  }
}

/**
 * Timers that never fire by themselves: deadlines, retries and polls happened in the record's
 * time. `fireInboxWatch` runs the inbox watch's pending poll (armed every `pollMs`), where the
 * record shows the watch read a request during a model call.
 */
export class ReplayTimers {
  pollMs = 0;
  readonly #pending = new Map<number, { callback: () => void; ms: number }>();
  #next = 0;

  setTimeout = (callback: () => void, ms: number): unknown => {
    this.#next += 1;
    this.#pending.set(this.#next, { callback, ms });
    return this.#next;
  };

  clearTimeout = (handle: unknown): void => {
    this.#pending.delete(handle as number);
  };

  fireInboxWatch(): void {
    for (const [handle, timer] of [...this.#pending]) {
      if (timer.ms !== this.pollMs) continue;
      this.#pending.delete(handle);
      timer.callback();
    }
  }
}

/** The events that end a run: nothing follows them. */
const FINISHING = new Set(["run.completed"]);

const CALLER_CANCEL_ENDS = new Set(["model.requested", "model.responded", "model.failed", "run.waiting", "run.failed"]);

// What the outside world answers: a request landed before one of these was landed before it.
// (tool outcomes are not among them: a request sent while tools ran lands in the commit of their outcomes).
const STEP_ENDS = new Set(["model.responded", "model.failed", "run.waiting"]);

/** The replay journal: `tape.store`, with every append compared with the record and refused once the replayed process stopped. */
export function replayJournal(tape: ReplayTape): JournalV1 {
  const store = tape.store;
  const touch = (scope: RunScope) => {
    if (!scope.runId.endsWith(INTERRUPT_INBOX_SUFFIX) && tape.recorded.streams.has(scope.runId) && !tape.given.has(scope.runId)) tape.active = scope.runId;
  };
  return {
    specificationVersion: "v1",
    capabilities: store.capabilities,
    async append(scope, expectedSeq, drafts, options) {
      if (tape.crashed) throw tape.crashError("a stopped process appends nothing");
      if (tape.divergence !== undefined) throw tape.divergence;
      touch(scope);
      // Only a resume changes the release, first thing: a process that would append anything
      // else there is one the record shows died before.
      const recorded = tape.events(scope.runId)[expectedSeq]?.type;
      if ((recorded === "release.changed" || recorded === "release.migrated") && drafts[0]?.type !== recorded) {
        tape.crash(`a resume changed the release at event ${expectedSeq} of ${scope.runId}`);
      }
      // Past the end of a run the record leaves unfinished, the recorded process stopped.
      const stream = tape.events(scope.runId);
      if (recorded === undefined && stream.length > 0 && expectedSeq >= stream.length && !FINISHING.has(stream[stream.length - 1]!.type)) {
        tape.crash(`the record of ${scope.runId} ends unfinished at event ${stream.length}`);
      }
      const result = await store.append(scope, expectedSeq, drafts, options);
      const appended: JournalEvent[] = [];
      for await (const event of store.read(scope, { fromSeq: expectedSeq })) appended.push(event);
      tape.check(appended);
      return result;
    },
    read(scope, options) {
      touch(scope);
      if (!scope.runId.endsWith(INTERRUPT_INBOX_SUFFIX)) return store.read(scope, options);
      return {
        async *[Symbol.asyncIterator]() {
          await tape.deliverInterrupts(scope);
          yield* store.read(scope, options);
        },
      };
    },
    async head(scope) {
      touch(scope);
      if (scope.runId.endsWith(INTERRUPT_INBOX_SUFFIX)) await tape.deliverInterrupts(scope);
      return store.head(scope);
    },
    verify: (scope) => store.verify(scope),
    listRuns: (tenantId) => store.listRuns(tenantId),
    close: () => store.close(),
  };
}
