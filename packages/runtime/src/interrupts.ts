import { EVENT_SCHEMA_VERSION, YokeError, newId, readYokeEvents, type RunScope, type YokeEventDraft } from "@yoke/protocol";
import type { InterruptInbox, InterruptRequest, InterruptRequestOptions } from "./loop-control.js";
import type { HarnessDeps, RunContext } from "./run-context.js";
import type { TurnParticipant } from "./turn/participant.js";
import { runCompleted } from "./loop/run-completed.js";

/**
 * A run's interrupt inbox is a stream of its own beside the run (docs/decisions/0015): the
 * run's id + this suffix, in the run's tenant. Any process may append to it (it has no lease);
 * only the run's owner appends to the run, where it acknowledges each request it landed.
 */
export const INTERRUPT_INBOX_SUFFIX = ":interrupts";

export function createInterruptInbox(): InterruptInbox {
  return { length: 0, requests: [] };
}

export function inboxScope(scope: RunScope): RunScope {
  return { tenantId: scope.tenantId, runId: `${scope.runId}${INTERRUPT_INBOX_SUFFIX}` };
}

/** Checks what `harness.interrupt` was given. Throws CONFIG_INVALID. */
export function interruptOf(options: InterruptRequestOptions): { kind: "input" | "cancel"; text: string } {
  const input = (options as { input?: unknown } | undefined)?.input;
  const cancel = (options as { cancel?: unknown } | undefined)?.cancel;
  if (typeof input === "string" && input.trim() !== "" && cancel === undefined) return { kind: "input", text: input };
  if (typeof cancel === "string" && input === undefined) return { kind: "cancel", text: cancel === "" ? "cancelled by an interrupt" : cancel };
  throw new YokeError("CONFIG_INVALID", "interrupt: pass { input: <non-empty text> } or { cancel: <reason> }", { details: { option: "interrupt" } });
}

/**
 * Appends a request to the run's inbox (creating the inbox with its first request), retrying
 * when another writer appended first. Needs no lease: the run's owner may be running.
 */
export async function appendInterrupt(deps: HarnessDeps, scope: RunScope, request: { kind: "input" | "cancel"; text: string }): Promise<InterruptRequest> {
  const inbox = inboxScope(scope);
  const interruptId = newId(deps.ids, "interrupt");
  const requested: YokeEventDraft = { type: "interrupt.requested", at: deps.clock.now(), causationId: null, data: { interruptId, ...request } };
  const drafts = deps.redactDraft === undefined ? [requested] : [deps.redactDraft(requested)];
  for (let attempt = 0; ; attempt++) {
    const head = await deps.journal.head(inbox);
    const header: YokeEventDraft = {
      type: "run.started",
      at: deps.clock.now(),
      causationId: null,
      data: {
        sessionId: "inbox",
        task: `interrupt inbox of ${scope.runId}`,
        tools: [],
        limits: { maxTurns: 1 },
        inboxOf: scope.runId,
        release: { runtime: deps.runtimeVersion, eventSchemaVersion: EVENT_SCHEMA_VERSION },
      },
    };
    try {
      const appended = await deps.journal.append(inbox, head?.length ?? 0, head === null ? [header, ...drafts] : drafts);
      return { interruptId, inboxSeq: appended.lastSeq, ...request };
    } catch (error) {
      // Another process appended between our head and our append: ask again.
      if (!YokeError.hasCode(error, "JOURNAL_CONFLICT") || attempt >= 16) throw error;
    }
  }
}

/** Reads what was appended to the run's inbox since this process last looked (nothing when it has not grown). */
export async function pollInterrupts(context: RunContext): Promise<void> {
  const scope = inboxScope(context.scope);
  const head = await context.deps.journal.head(scope);
  if (head === null || head.length <= context.inbox.length) return;
  for await (const event of readYokeEvents(context.deps.journal, scope, { fromSeq: context.inbox.length })) {
    if (event.type === "interrupt.requested") context.inbox.requests.push({ ...event.data, inboxSeq: event.seq });
    context.inbox.length = event.seq + 1;
  }
}

/** Requests read from the inbox that have not landed in the run, in the order they were made. */
export function pendingInterrupts(context: RunContext): InterruptRequest[] {
  return context.inbox.requests.filter((request) => !context.facts.landedInterrupts.has(request.interruptId));
}

/** The first cancellation waiting in the inbox, if any. */
export function pendingCancel(context: RunContext): InterruptRequest | undefined {
  return pendingInterrupts(context).find((request) => request.kind === "cancel");
}

/** `interrupt.landed` + `input.added` (source `interrupt`) for every pending input request: what lands at a turn boundary. */
export function landInputDrafts(context: RunContext, turnId: string | null): YokeEventDraft[] {
  return pendingInterrupts(context)
    .filter((request) => request.kind === "input")
    .flatMap((request): YokeEventDraft[] => [
      landed(context, request, turnId),
      {
        type: "input.added",
        at: context.deps.clock.now(),
        causationId: turnId,
        data: { source: "interrupt", content: [{ type: "text", text: request.text }] },
      },
    ]);
}

export function landed(context: RunContext, request: InterruptRequest, turnId: string | null): YokeEventDraft {
  return {
    type: "interrupt.landed",
    at: context.deps.clock.now(),
    causationId: turnId,
    data: { interruptId: request.interruptId, inboxSeq: request.inboxSeq, kind: request.kind },
  };
}

/**
 * Registers the run `context` drives as live in its harness until `release` is called: a
 * cancel sent through the same harness aborts the returned controller (`abortLive`), and
 * only a model call listens to it (never a tool: a cancel lands after the batch).
 */
export function holdLive(context: RunContext): { readonly controller: AbortController; release(): void } {
  const { live } = context.deps.interrupts;
  const controller = new AbortController();
  const runId = context.scope.runId;
  const held = live.get(runId) ?? new Set<AbortController>();
  held.add(controller);
  live.set(runId, held);
  return {
    controller,
    release() {
      held.delete(controller);
      if (held.size === 0 && live.get(runId) === held) live.delete(runId);
    },
  };
}

/** A cancel this harness just appended to the inbox of a run it drives: aborts the run's model call in flight, if any. */
export function abortLive(deps: HarnessDeps, runId: string, request: InterruptRequest): void {
  if (request.kind !== "cancel") return;
  for (const controller of deps.interrupts.live.get(runId) ?? []) if (!controller.signal.aborted) controller.abort(request);
}

/**
 * Watches the run's inbox while a model call is in flight (another process may cancel the
 * run through the journal): every `pollMs` on the harness's timers it reads what is new and
 * aborts `controller`, with the request as the reason, when a cancel is pending. Inputs are
 * only read: they land between turns. `stop` disarms it and waits for a read in progress, so
 * the inbox is never read twice at once.
 */
export function watchInbox(context: RunContext, controller: AbortController): { stop(): Promise<void> } {
  const { timers, interrupts } = context.deps;
  let stopped = false;
  let reading: Promise<void> = Promise.resolve();
  let handle: unknown;
  const arm = () => {
    handle = timers.setTimeout(() => {
      reading = tick();
    }, interrupts.pollMs);
  };
  const tick = async () => {
    if (stopped) return;
    try {
      await pollInterrupts(context);
    } catch (error) {
      // The loop reads the inbox again at its next step, and says then what is wrong.
      context.logger.warn({ code: YokeError.isInstance(error) ? error.code : "INTERNAL" }, "could not read the interrupt inbox during the model call");
    }
    if (stopped) return;
    const cancel = pendingCancel(context);
    if (cancel !== undefined) controller.abort(cancel);
    else arm();
  };
  if (!controller.signal.aborted) arm();
  return {
    async stop() {
      stopped = true;
      timers.clearTimeout(handle);
      await reading;
    },
  };
}

/** The cancel an aborted controller carries (`abortLive`, `watchInbox`), if that is why it aborted. */
export function cancelOf(signal: AbortSignal): InterruptRequest | undefined {
  const reason = signal.aborted ? (signal.reason as Partial<InterruptRequest> | undefined) : undefined;
  return reason?.kind === "cancel" && typeof reason.interruptId === "string" ? (reason as InterruptRequest) : undefined;
}

/** A cancel waiting in the inbox ends the run at the turn boundary, landed with its `run.completed`. */
export const interruptCancel: TurnParticipant = {
  name: "interrupt cancel",
  boundary: (context, state) => {
    const cancel = pendingCancel(context);
    if (cancel === undefined) return undefined;
    return { end: [landed(context, cancel, state.currentTurnId ?? null), runCompleted(context, state, { status: "cancelled", reason: cancel.text })] };
  },
};

/** Input interrupts land at the turn boundary: after every result of the last batch, before the next request. */
export const interruptInput: TurnParticipant = {
  name: "interrupt input",
  boundary: (context, state) => {
    const note = landInputDrafts(context, state.currentTurnId ?? null);
    return note.length === 0 ? undefined : { note };
  },
};
