import { YokeError, type JsonValue, type YokeEventDraft } from "@yoke/protocol";
import type { Logger } from "./logger.js";

/** What a redacted secret is replaced with. */
export const REDACTED = "[REDACTED]";

/** The shortest secret accepted: shorter strings would be found by chance in ids and digests. */
export const MIN_SECRET_LENGTH = 8;

/**
 * Replaces every occurrence of a set of secrets, and of their encoded forms, in text and in
 * JSON values (keys included). The forms: the secret itself, its JSON-string escaping, its
 * URL encoding (`encodeURIComponent` and the form encoding with `+`), and its base64 and
 * base64url encodings at each of the three byte alignments it can have inside a longer
 * encoded string (the stable middle of each; edges that depend on neighbouring bytes are
 * left, so a base64 secret is cut to a few characters, never kept).
 *
 * @example
 * ```ts
 * import { createRedactor } from "@yoke/runtime";
 *
 * const redactor = createRedactor(["sk-live-0123456789"]);
 * redactor.redactText("key=sk-live-0123456789"); // "key=[REDACTED]"
 * redactor.redactJson({ auth: Buffer.from("sk-live-0123456789").toString("base64") }); // { auth: "[REDACTED]" }
 * const app = pino({ hooks: { streamWrite: redactor.redactText } }); // your own log lines too
 * ```
 */
export interface Redactor {
  /** `text` with every form of every secret replaced by `[REDACTED]`; the same string when none occurs. */
  redactText(text: string): string;
  /** `value` with every string (and object key) redacted; the same object when nothing changed. */
  redactJson<T>(value: T): T;
  /** Whether `text` holds any form of any secret. */
  containsSecret(text: string): boolean;
}

/**
 * Builds a redactor for `secrets` (each at least MIN_SECRET_LENGTH characters; CONFIG_INVALID
 * otherwise).
 */
export function createRedactor(secrets: readonly string[]): Redactor {
  if (!Array.isArray(secrets)) throw new YokeError("CONFIG_INVALID", "createRedactor: secrets must be an array of strings", { details: { option: "secrets" } });
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (typeof secret !== "string" || secret.length < MIN_SECRET_LENGTH) {
      throw new YokeError("CONFIG_INVALID", `createRedactor: every secret must be a string of at least ${MIN_SECRET_LENGTH} characters`, {
        details: { option: "secrets" },
      });
    }
    for (const form of formsOf(secret)) forms.add(form);
  }
  const pattern =
    forms.size === 0
      ? undefined
      : new RegExp(
          [...forms]
            .sort((a, b) => b.length - a.length)
            .map(escapeRegExp)
            .join("|"),
          "g",
        );
  const redactText = (text: string): string => {
    if (pattern === undefined || typeof text !== "string") return text;
    pattern.lastIndex = 0;
    if (!pattern.test(text)) return text;
    pattern.lastIndex = 0;
    return text.replace(pattern, REDACTED);
  };
  const redactJson = <T>(value: T): T => walk(value, redactText) as T;
  return {
    redactText,
    redactJson,
    containsSecret: (text) => redactText(text) !== text,
  };
}

function formsOf(secret: string): string[] {
  const forms = [secret, JSON.stringify(secret).slice(1, -1), encodeURIComponent(secret), encodeURIComponent(secret).replace(/%20/g, "+")];
  const bytes = Buffer.from(secret, "utf8");
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString("base64");
    // Characters that depend only on the secret's bytes: after the group holding the padding, up to the last whole group.
    const start = offset === 0 ? 0 : 4;
    const end = Math.floor((offset + bytes.length) / 3) * 4;
    const core = encoded.slice(start, end);
    if (core.length >= MIN_SECRET_LENGTH) forms.push(core, core.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  // A secret's own unpadded encodings (a whole value that is just the secret, base64'd).
  const whole = bytes.toString("base64");
  forms.push(whole, whole.replace(/=+$/, ""), bytes.toString("base64url"));
  return forms.filter((form) => form.length >= MIN_SECRET_LENGTH);
}

function walk(value: unknown, redact: (text: string) => string): unknown {
  if (typeof value === "string") return redact(value);
  if (Array.isArray(value)) {
    let changed = false;
    const next = value.map((item) => {
      const redacted = walk(item, redact);
      if (redacted !== item) changed = true;
      return redacted;
    });
    return changed ? next : value;
  }
  if (typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype) {
    let changed = false;
    const entries = Object.entries(value).map(([key, item]) => {
      const redactedKey = redact(key);
      const redacted = walk(item, redact);
      if (redactedKey !== key || redacted !== item) changed = true;
      return [redactedKey, redacted] as const;
    });
    return changed ? Object.fromEntries(entries) : value;
  }
  return value;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Redacts journal drafts, remembering each draft's redacted twin: a draft redacted again
 * (the same object handed to another turn) costs nothing and stays the same object.
 */
export function createDraftRedactor(redactor: Redactor): (draft: YokeEventDraft) => YokeEventDraft {
  const seen = new WeakMap<YokeEventDraft, YokeEventDraft>();
  return (draft) => {
    const known = seen.get(draft);
    if (known !== undefined) return known;
    const redacted = redactor.redactJson(draft as unknown as JsonValue) as unknown as YokeEventDraft;
    seen.set(draft, redacted);
    if (redacted !== draft) seen.set(redacted, redacted);
    return redacted;
  };
}

/**
 * The error a harness throws, with secrets redacted from its message and details. A YokeError
 * is rebuilt with the same code, retryability and redacted details, without its cause (which
 * may hold the secret); any other error is wrapped as INTERNAL when its message holds one.
 */
export function redactError(redactor: Redactor, error: unknown): unknown {
  if (YokeError.isInstance(error)) {
    const message = redactor.redactText(error.message);
    const details = redactor.redactJson(error.details as Record<string, unknown>);
    const causeHolds = error.cause instanceof Error && redactor.containsSecret(`${error.cause.message}\n${error.cause.stack ?? ""}`);
    if (message === error.message && details === error.details && !causeHolds) return error;
    return new YokeError(error.code, message, { details, retryable: error.retryable });
  }
  if (error instanceof Error && redactor.containsSecret(`${error.message}\n${error.stack ?? ""}`)) {
    return new YokeError("INTERNAL", redactor.redactText(error.message));
  }
  return error;
}

/**
 * `logger` with the secrets cut out of every line's fields and message (children too): what
 * the harness logs through when it has `secrets`.
 */
export function redactingLogger(logger: Logger, redactor: Redactor): Logger {
  const method =
    (level: "debug" | "info" | "warn" | "error") =>
    (fields: Record<string, unknown>, message?: string): void => {
      const clean = redactor.redactJson(fields);
      if (message === undefined) logger[level](clean);
      else logger[level](clean, redactor.redactText(message));
    };
  return {
    debug: method("debug"),
    info: method("info"),
    warn: method("warn"),
    error: method("error"),
    ...(typeof logger.child === "function"
      ? { child: (bindings: Record<string, unknown>) => redactingLogger(logger.child!(redactor.redactJson(bindings)), redactor) }
      : {}),
  };
}
