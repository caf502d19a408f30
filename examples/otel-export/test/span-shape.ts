// Test support: the exported spans of a run as plain data, parents by name path, so two
// exports can be compared (span and trace ids are random; everything else must match).
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";

export interface SpanShape {
  readonly path: string;
  readonly kind: number;
  readonly start: readonly [number, number];
  readonly end: readonly [number, number];
  readonly attributes: Record<string, unknown>;
  readonly status: { code: number; message?: string | undefined };
  readonly events: readonly { name: string; time: readonly [number, number]; attributes: Record<string, unknown> }[];
}

/** `parent > … > name` of a span, by following parent span ids among `spans`. */
export function pathOf(span: ReadableSpan, spans: readonly ReadableSpan[]): string {
  const byId = new Map(spans.map((s) => [s.spanContext().spanId, s]));
  const names = [span.name];
  let parent = span.parentSpanContext?.spanId;
  while (parent !== undefined) {
    const next = byId.get(parent);
    if (!next) break;
    names.unshift(next.name);
    parent = next.parentSpanContext?.spanId;
  }
  return names.join(" > ");
}

/** Every span as comparable data, in the order the spans started (then by path). */
export function shapesOf(spans: readonly ReadableSpan[]): SpanShape[] {
  return spans
    .map((span) => ({
      path: pathOf(span, spans),
      kind: span.kind,
      start: span.startTime,
      end: span.endTime,
      attributes: { ...span.attributes },
      status: { code: span.status.code, message: span.status.message },
      events: span.events.map((event) => ({ name: event.name, time: event.time, attributes: { ...event.attributes } })),
    }))
    .sort((a, b) => a.start[0] - b.start[0] || a.start[1] - b.start[1] || a.path.localeCompare(b.path));
}

export function millisOf(time: readonly [number, number]): number {
  return time[0] * 1000 + time[1] / 1_000_000;
}
