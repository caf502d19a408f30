import type { YokeEvent } from "@yoke/protocol";
import type { Logger } from "../logger.js";

/**
 * What a harness tells the outside, and what it never tells: its log lines (`logger`), every
 * event once it is durable (`onEvent`), and the secrets cut out of all of it. One of the
 * groups `HarnessOptions` is composed of.
 *
 * @example
 * ```ts
 * const observability: HarnessObservabilityOptions = {
 *   logger: pino({ level: "info" }),
 *   onEvent: (event) => metrics.increment(event.type),
 *   secrets: [process.env.PAYMENTS_API_KEY!],
 * };
 * const harness = createHarness({ ...observability, provider, tools });
 * ```
 */
export interface HarnessObservabilityOptions {
  /** A logger: pino (the default, silent), `console`, or anything with debug/info/warn/error (see `Logger`). The harness logs ids, seqs, tool names, durations and error codes only. */
  logger?: Logger;
  /**
   * Called after each durable append, once per stored event, in order, with the event typed
   * (the `YokeEvent` union: narrow on `event.type` or with `isEventOfType`). A throw
   * propagates (the run stays resumable).
   */
  onEvent?: (event: YokeEvent) => void;
  /**
   * Secrets to keep out of everything the harness writes: every journal event (task, tool
   * inputs, results, errors, receipts), every line it logs, and the message and details of
   * every error it throws, with their base64 and URL encodings (see `createRedactor`). What
   * the journal holds is also what the model is shown. Each at least 8 characters. To redact
   * your own log lines too, build pino with `hooks: { streamWrite: createRedactor(secrets).redactText }`.
   */
  secrets?: readonly string[];
}
