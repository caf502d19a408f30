// What the span recorders of one run share: event times as OTel times, the error status, and the
// run's spans they hang their own under.
import { type Attributes, type Context, type HrTime, type Span, type SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { GEN_AI } from "./attributes.js";

/** Milliseconds since the epoch as an OTel HrTime: never mistaken for a `performance.now()` reading. */
export function hrTimeOf(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1_000_000)];
}

/** ERROR status with the Yoke error code, and `error.type` as the conventions ask. */
export function fail(span: Span, code: string, message: string): void {
  span.setAttribute(GEN_AI.errorType, code);
  span.setStatus({ code: SpanStatusCode.ERROR, message: message === "" ? code : `${code}: ${message}` });
}

/** The run's side of a recorder: it starts spans (counted) and knows the open turns. */
export interface SpanHost {
  start(name: string, at: number, attributes: Attributes, parent: Context, kind: SpanKind): Span;
  /** The context of a turn's span while it is open, else the run's. */
  turnContext(turnId: string | undefined): Context;
  /** The turn's span while it is open, else the run's. */
  spanOfTurn(turnId: string | undefined): Span;
  /** The turn that started last, while the run is open. */
  readonly currentTurn: string | undefined;
}
