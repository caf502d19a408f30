import { newId, parseId, type RunScope, type YokeEventDraft } from "@yoke/protocol";
import type { HarnessDeps } from "../run-context.js";
import type { StartOptions } from "../run-options.js";
import type { StoredInput } from "../input-media.js";
import { continuesOf, historyOf, type ContinuedRun, type SessionHistory } from "./session-history.js";
import { claimSessionTurn, markStarting } from "./session-stream.js";

/** Where a new run stands in its session: the session, the earlier runs it continues and their conversation. */
export interface SessionOpening {
  readonly sessionId: string;
  readonly continues: ContinuedRun[] | undefined;
  readonly history: SessionHistory | undefined;
  /** Called once the run's `run.started` is durable (or its start failed). */
  readonly started: () => void;
}

/**
 * The session of a run about to start. Without `sessionId` (or for a child run) a new
 * session of one, recorded nowhere else. With one, the run is recorded as the session's next
 * (`claimSessionTurn`: ordered against every other send, in any process) and continues its
 * earlier runs.
 */
export async function openSession(deps: HarnessDeps, scope: RunScope, options: StartOptions, child: boolean): Promise<SessionOpening> {
  if (options.sessionId === undefined || child) {
    const sessionId = options.sessionId === undefined ? newId(deps.ids, "session") : parseId("session", options.sessionId);
    return { sessionId, continues: undefined, history: undefined, started: () => undefined };
  }
  const sessionId = parseId("session", options.sessionId);
  const started = markStarting(deps, scope.runId);
  try {
    const earlier = await claimSessionTurn(deps, scope, sessionId, { wait: options.waitForSession, signal: options.signal });
    return { sessionId, continues: earlier.length === 0 ? undefined : continuesOf(earlier), history: historyOf(earlier), started };
  } catch (error) {
    started();
    throw error;
  }
}

/**
 * `input.added` (source `user`): the first message's images and files, which follow its text
 * (the task), then each later message of the input.
 */
export function laterInputDrafts(deps: HarnessDeps, input: StoredInput): YokeEventDraft[] {
  const [first = [], ...later] = input.messages;
  const media = first.filter((part) => part.type !== "text");
  return [...(media.length === 0 ? [] : [media]), ...later].map((content) => ({
    type: "input.added",
    at: deps.clock.now(),
    causationId: null,
    data: { source: "user", content: [...content] },
  }));
}
