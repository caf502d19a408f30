import type { ContextInput, SourceMessage } from "@yoke/context-compiler";
import { RunStateAccumulator, YokeError, type JournalV1, type Message, type RunState } from "@yoke/protocol";

/** An earlier run of a session as a new run found it: ended, with its fold. */
export interface EarlierRun {
  readonly runId: string;
  readonly state: RunState;
}

/** What a session run continues from: `run.started.continues`. */
export interface ContinuedRun {
  readonly runId: string;
  readonly length: number;
  readonly headHash: string;
}

/**
 * The conversation a session run continues: every earlier run's messages, oldest first. The
 * first message of the session is the compile's task (pinned, never dropped); the rest come
 * before the run's own messages in the transcript, as ids `history:<n>` (positions in the
 * session, which no later run moves), so compaction, budgets and manifests treat them as any
 * other transcript message.
 */
export interface SessionHistory {
  /** The session's first task: the compile's task. */
  readonly task: string;
  /** Every earlier message after the session's first, as transcript sources (the same objects on every turn, so the compiler's caches hit). */
  readonly sources: readonly SourceMessage[];
  /** Where each source came from: its run and the event seq there. */
  readonly origins: ReadonlyMap<string, { readonly runId: string; readonly seq: number }>;
  /** The run's own first message as a source, made once. */
  own: { readonly message: Message; readonly source: SourceMessage } | undefined;
}

/** `run.started.continues` for the earlier runs a claim found. */
export function continuesOf(runs: readonly EarlierRun[]): ContinuedRun[] {
  return runs.map(({ runId, state }) => ({ runId, length: state.length, headHash: state.headHash }));
}

/** The history of earlier runs already folded (a start, right after its claim). */
export function historyOf(runs: readonly EarlierRun[]): SessionHistory | undefined {
  if (runs.length === 0) return undefined;
  const messages: { message: Message; runId: string; seq: number }[] = [];
  for (const { runId, state } of runs) {
    const own = conversationOf(state);
    for (const [index, message] of own.entries()) messages.push({ message, runId, seq: state.messageSeqs[index]! });
  }
  const sources = messages.slice(1).map(({ message }, index): SourceMessage => ({ id: `history:${index + 1}`, message }));
  const origins = new Map(messages.slice(1).map(({ runId, seq }, index) => [`history:${index + 1}`, { runId, seq }] as const));
  return { task: runs[0]!.state.task, sources, origins, own: undefined };
}

/**
 * Reads the earlier runs a run pinned (`run.started.continues`) and checks each still has the
 * length and head hash pinned: SESSION_MISMATCH naming it otherwise (a rebuilt request would
 * not be the one the model saw).
 */
export async function loadHistory(
  journal: JournalV1,
  tenantId: string,
  runId: string,
  pins: readonly ContinuedRun[] | undefined,
): Promise<SessionHistory | undefined> {
  if (pins === undefined || pins.length === 0) return undefined;
  const runs: EarlierRun[] = [];
  for (const pin of pins) {
    const accumulator = new RunStateAccumulator();
    let hashAtPin: string | null = null;
    for await (const event of journal.read({ tenantId, runId: pin.runId })) {
      accumulator.apply(event);
      if (event.seq === pin.length - 1) hashAtPin = event.hash;
    }
    if (accumulator.length !== pin.length || hashAtPin !== pin.headHash) {
      const actualHeadHash = accumulator.length === 0 ? null : accumulator.peek().headHash;
      throw new YokeError(
        "SESSION_MISMATCH",
        `run ${runId} continues run ${pin.runId} as it was at ${pin.length} events (head ${pin.headHash}), but it now has ${accumulator.length} (head ${actualHeadHash ?? "none"}): the conversation this run was shown cannot be rebuilt`,
        {
          details: {
            tenantId,
            runId,
            previousRunId: pin.runId,
            expectedLength: pin.length,
            expectedHeadHash: pin.headHash,
            actualLength: accumulator.length,
            actualHeadHash,
          },
        },
      );
    }
    runs.push({ runId: pin.runId, state: accumulator.snapshot() });
  }
  return historyOf(runs);
}

/**
 * A run's compile input with its session's history: the session's first task as the task,
 * then the earlier messages, then the run's own messages from its first (its task, a user
 * message here). Unchanged without a history.
 */
export function withHistory(input: ContextInput, history: SessionHistory | undefined, state: Pick<RunState, "messages">): ContextInput {
  if (history === undefined) return input;
  const first = state.messages[0]!;
  if (history.own?.message !== first) history.own = { message: first, source: { id: "message:0", message: first } };
  return { ...input, task: history.task, transcript: [...history.sources, history.own.source, ...input.transcript] };
}

/**
 * A finished run's messages as a later run is shown them: all of them, but an assistant
 * message at the end whose tool calls never got results (a run ended between a response and
 * its batch) is left out, since no provider accepts a tool call without its result.
 */
function conversationOf(state: RunState): readonly Message[] {
  const last = state.messages.at(-1);
  if (last?.role === "assistant" && last.content.some((part) => part.type === "tool-call")) return state.messages.slice(0, -1);
  return state.messages;
}
