import { z } from "zod/v4";
import { JsonObjectSchema } from "./json-value.js";
import { ModelResponseSchema } from "./model.js";
import { HashSchema } from "./event-envelope.js";
import { reserves, settles, turnRef } from "./event-fragments.js";

/** A model call: the request journaled before it, what the context compiler decided, the response or the failed attempt. */
export const MODEL_EVENTS = {
  /** Journaled before the call: the digest of exactly the request sent. */
  "model.requested": z.object({ ...turnRef, requestHash: HashSchema, messageCount: z.number().int().nonnegative(), ...reserves }),
  /**
   * Journaled with `model.requested`, before the call: what the context compiler decided.
   * `manifestDelta` is the compiler's manifest delta against the run's previous manifest
   * (JSON here; the compiler's schema validates it), `artifacts` the content the request
   * refers to by SHA-256 (full text of cut tool outputs, …) not journaled before, and
   * `compactions` the context revisions this compile made. Journals written before it have none.
   */
  "context.compiled": z.object({
    ...turnRef,
    revision: z.number().int().nonnegative(),
    requestHash: HashSchema,
    manifestDelta: JsonObjectSchema,
    artifacts: z.array(z.object({ hash: HashSchema, text: z.string() })).optional(),
    compactions: z.array(JsonObjectSchema).optional(),
  }),
  /**
   * `argumentsFromRaw`: the response's tool calls were journaled without `arguments` where
   * those were exactly the parse of `rawArguments` (the argument text is kept once); a reader
   * gives them back with `withParsedArguments`, as the fold does. Absent in journals written
   * before it (every call kept both).
   */
  "model.responded": z.object({
    ...turnRef,
    response: ModelResponseSchema,
    latencyMs: z.number().nonnegative(),
    ...settles,
    argumentsFromRaw: z.literal(true).optional(),
  }),
  /**
   * One model call attempt that failed (a provider error, a deadline that passed, a response
   * that breaks the contract). `retryable`: the error's class allows another attempt;
   * `retrying`: another attempt follows. Changes no state: the request stays journaled, and a
   * run that stops here is resumed by asking again. Never journaled for a cancelled call.
   */
  "model.failed": z.object({
    ...turnRef,
    attempt: z.number().int().positive(),
    code: z.string(),
    message: z.string(),
    retryable: z.boolean(),
    retrying: z.boolean(),
    /** The provider's request id for the failed attempt, when it answered with one. Older events have none. */
    requestId: z.string().optional(),
  }),
} as const;
