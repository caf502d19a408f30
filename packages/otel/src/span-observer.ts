import { type Context, ROOT_CONTEXT, type Tracer, trace } from "@opentelemetry/api";
import { isYokeEventType, type JournalEvent, parseYokeEvent, type YokeEvent, type YokeEventOf } from "@yoke/protocol";
import { RunSpans } from "./run-spans.js";

/** Options shared by {@link createSpanObserver} and {@link spansFromEvents}. */
export interface YokeSpanOptions {
  /** `gen_ai.agent.name` of each run span (named `invoke_agent <agentName>`). Default `"yoke"`. */
  agentName?: string;
  /**
   * The parent of each top-level run span. Default: the root context, so the spans of a run
   * do not depend on whatever span happens to be active. A child run (a subagent) is always
   * parented to its parent's `spawn_subagent` attempt span when that run is observed too.
   */
  parentContext?: Context;
}

/**
 * Turns journal events into OpenTelemetry spans as they are appended: a span per run (root),
 * turn, model call attempt and action attempt, timed by the events' own `at`.
 */
export interface SpanObserver {
  /**
   * Feeds one event (as `onEvent`, `harness.events()` or `JournalV1.read` gives it); events of
   * one run must come in journal order. Bound: pass it as the harness's `onEvent`. An event
   * of a type this version does not know is ignored; a known type with invalid data throws
   * EVENT_INVALID.
   */
  readonly onEvent: (event: JournalEvent | YokeEvent) => void;
  /**
   * Ends every span still open (a run that waits for a person, or stopped on a crash) at the
   * time of its run's last event, with `yoke.incomplete: true`. Spans of finished runs are
   * already ended by their `run.completed`.
   */
  finish(): void;
  /** Spans started so far. */
  readonly spans: number;
  /** The trace id of each run's span, in the order the runs appeared. */
  readonly traceIds: readonly string[];
}

/**
 * A live observer: pass its `onEvent` to `createHarness` and the run's spans are emitted as
 * the journal grows, with the same names, parents, attributes and times as
 * {@link spansFromEvents} gives for the finished run.
 *
 * @example
 * ```ts
 * import { trace } from "@opentelemetry/api";
 * import { createSpanObserver } from "@yoke/otel";
 *
 * const observer = createSpanObserver(trace.getTracer("my-agent"));
 * const harness = createHarness({ journal, provider, tools, tenantId: "tenant_a", onEvent: observer.onEvent });
 * await harness.start("Summarize notes.txt");
 * observer.finish(); // ends the spans of a run that waits for a person
 * ```
 */
export function createSpanObserver(tracer: Tracer, options: YokeSpanOptions = {}): SpanObserver {
  const runs = new Map<string, RunSpans>();
  const traceIds: string[] = [];
  const parentContext = options.parentContext ?? ROOT_CONTEXT;
  let spans = 0;
  const owner = {
    tracer,
    agentName: options.agentName ?? "yoke",
    started: () => {
      spans += 1;
    },
    parentOf(started: YokeEventOf<"run.started"> | undefined): Context {
      const parent = started?.data.parent;
      const span = parent ? runs.get(parent.runId)?.attemptSpan(parent.actionId) : undefined;
      return span ? trace.setSpan(parentContext, span) : parentContext;
    },
  };
  const ignored = new Set<string>();

  const onEvent = (input: JournalEvent | YokeEvent): void => {
    if (!isYokeEventType(input.type) || ignored.has(input.runId)) return;
    const event = parseYokeEvent(input as JournalEvent);
    // An interrupt inbox is a stream beside its run, never a run of its own.
    if (event.type === "run.started" && event.data.inboxOf !== undefined) {
      ignored.add(event.runId);
      return;
    }
    let run = runs.get(event.runId);
    if (!run || run.finished) {
      run = new RunSpans(owner, event);
      runs.set(event.runId, run);
      const traceId = run.span.spanContext().traceId;
      if (!traceIds.includes(traceId)) traceIds.push(traceId);
    }
    run.record(event);
  };

  return {
    onEvent,
    finish() {
      for (const run of runs.values()) run.finish();
    },
    get spans() {
      return spans;
    },
    get traceIds() {
      return traceIds;
    },
  };
}

/**
 * Emits the spans of a past run (or of several) from its journal events, in journal order:
 * the same spans the live {@link createSpanObserver} gives, timed by the events, so the same
 * events always give the same spans. Spans still open at the end (a run that waits, or was
 * cut short) end at their run's last event, with `yoke.incomplete: true`.
 *
 * @example
 * ```ts
 * import { trace } from "@opentelemetry/api";
 * import { spansFromEvents } from "@yoke/otel";
 *
 * const events = [];
 * for await (const event of journal.read({ tenantId: "tenant_a", runId })) events.push(event);
 * const { spans, traceIds } = spansFromEvents(events, trace.getTracer("yoke-export"));
 * ```
 */
export function spansFromEvents(
  events: Iterable<JournalEvent | YokeEvent>,
  tracer: Tracer,
  options: YokeSpanOptions = {},
): { spans: number; traceIds: string[] } {
  const observer = createSpanObserver(tracer, options);
  for (const event of events) observer.onEvent(event);
  observer.finish();
  return { spans: observer.spans, traceIds: [...observer.traceIds] };
}
