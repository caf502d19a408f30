import { z } from "zod/v4";
import { JsonObjectSchema } from "./json-value.js";

/**
 * The version of the event envelope and of the canonical event data below. Readers accept
 * every version up to this one; a journal written by a newer version is refused with
 * JOURNAL_SCHEMA_UNSUPPORTED rather than misread.
 */
export const EVENT_SCHEMA_VERSION = 1;

/** `noun.verb` (past tense), optionally `noun.noun.verb`. */
export const EVENT_TYPE_PATTERN = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*){1,3}$/;

/** 64 hex characters of SHA-256. The first event's predecessor is GENESIS_HASH. */
export const HashSchema = z.string().regex(/^[0-9a-f]{64}$/);
export const GENESIS_HASH = "0".repeat(64);

/**
 * A key id of a keyed journal chain: 1–64 characters of `[A-Za-z0-9._-]` (it is written
 * into every event hash it seals, between colons).
 */
export const JOURNAL_KEY_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * An event's `hash` or `prevHash`: 64 hex characters of SHA-256 (an unkeyed chain), or
 * `hmac-sha256:<keyId>:<64 hex>` (a chain keyed per tenant, naming the key that sealed it).
 */
export const ChainHashSchema = z.string().regex(/^(?:hmac-sha256:[A-Za-z0-9._-]{1,64}:)?[0-9a-f]{64}$/);

/**
 * What a writer hands to `JournalV1.append`. The store adds the envelope: tenant, run,
 * sequence number, schema version and the hash chain.
 */
export const EventDraftSchema = z.object({
  type: z.string().regex(EVENT_TYPE_PATTERN),
  /** Milliseconds since the epoch, from the writer's injected clock. */
  at: z.number().int().nonnegative(),
  /** What caused this event: a turn, action or event id. */
  causationId: z.string().nullable().default(null),
  data: JsonObjectSchema,
});
export type EventDraft = z.input<typeof EventDraftSchema>;

/** A stored event: a draft with its envelope. */
export const JournalEventSchema = z.object({
  schemaVersion: z.number().int().positive(),
  tenantId: z.string(),
  runId: z.string(),
  seq: z.number().int().nonnegative(),
  type: z.string().regex(EVENT_TYPE_PATTERN),
  at: z.number().int().nonnegative(),
  causationId: z.string().nullable(),
  data: JsonObjectSchema,
  prevHash: ChainHashSchema,
  hash: ChainHashSchema,
});
export type JournalEvent = z.infer<typeof JournalEventSchema>;
