import type { JsonValue } from "@yoke/protocol";
import { SimulatedToolError, type SecurityEnvironment } from "./tool-support.js";

/*
 * The workspace suite's records, in upstream's field order (email_client, calendar_client and
 * cloud_drive_client), and what its three tool areas share: the live lists, next ids,
 * datetimes in `datetime.isoformat()` form, and pydantic's EmailStr.
 */

export interface CalendarEvent {
  id_: string;
  title: string;
  description: string;
  start_time: string;
  end_time: string;
  location: string | null;
  participants: string[];
  all_day: boolean;
  status: string;
}

export interface Email {
  id_: string;
  sender: string;
  recipients: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  body: string;
  status: string;
  read: boolean;
  timestamp: string;
  /** A file id, or the calendar event object itself (shared, not copied, as upstream does). */
  attachments: (string | CalendarEvent)[];
}

export interface DriveFile {
  id_: string;
  filename: string;
  content: string;
  owner: string;
  last_modified: string;
  shared_with: Record<string, string>;
  size: number;
}

interface Inbox {
  account_email: string;
  initial_emails: Email[];
  contact_list: { email: string; name: string }[];
  trash: Email[];
}

export const inbox = (env: SecurityEnvironment) => env.state.inbox as unknown as Inbox;
export const calendar = (env: SecurityEnvironment) =>
  env.state.calendar as unknown as { current_day: string; account_email: string; initial_events: CalendarEvent[] };
export const drive = (env: SecurityEnvironment) => env.state.cloud_drive as unknown as { account_email: string; initial_files: DriveFile[] };

/** A record as a JSON value for the caller: a copy, so the caller cannot reach the live state. */
export const snapshot = (value: unknown): JsonValue => structuredClone(value) as JsonValue;

const INTEGER = /^\s*[+-]?\d+\s*$/;

/** Upstream's next id: 1 + the largest numeric `id_` in the live list (1 for an empty list), as text. */
export function nextId(items: readonly { id_: string }[]): string {
  const ids = items.filter((item) => INTEGER.test(item.id_)).map((item) => Number(item.id_));
  return String(ids.length === 0 ? 1 : Math.max(...ids) + 1);
}

/** A string's length as Python counts it: Unicode code points, not UTF-16 units. */
export const codePointLength = (text: string): number => [...text].length;

/**
 * Derived fields upstream computes when it loads the environment, materialised in place:
 * every file's `size` (the code-point length of its content). Call it on a freshly built
 * workspace environment before the run, so `pre` and `post` both carry sizes.
 *
 * @example
 * ```ts
 * const state = withWorkspaceDerivedFields(buildEnvironment(suite, injectionValues(suite)));
 * ```
 */
export function withWorkspaceDerivedFields<T extends Record<string, unknown>>(state: T): T {
  const files = (state.cloud_drive as { initial_files?: DriveFile[] } | undefined)?.initial_files ?? [];
  for (const file of files) file.size = codePointLength(file.content);
  return state;
}

// --- datetimes -------------------------------------------------------------------------------

/** A naive datetime as milliseconds of a UTC clock (no time zone is involved anywhere). */
type Instant = number;

const pad = (value: number, width = 2) => String(value).padStart(width, "0");

/** Python's `datetime.isoformat()` of a naive datetime: `2024-05-18T09:00:00`, microseconds only when non-zero. */
export function isoformat(instant: Instant): string {
  const date = new Date(instant);
  return `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}T${timeOf(instant)}`;
}

/** Python's `time().isoformat()`: `HH:MM:SS`, with `.ffffff` when there are (milli)seconds' fractions. */
export function timeOf(instant: Instant): string {
  const date = new Date(instant);
  const millis = date.getUTCMilliseconds();
  const fraction = millis === 0 ? "" : `.${pad(millis, 3)}000`;
  return `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}${fraction}`;
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?$/;

/** A stored ISO datetime as an instant, or undefined when it is not one. */
export function parseIso(text: string): Instant | undefined {
  const match = ISO.exec(text);
  if (match === null) return undefined;
  const [, y, mo, d, h = "0", mi = "0", s = "0", f = "0"] = match;
  return validInstant(Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s), Math.floor(Number(f.padEnd(6, "0")) / 1000));
}

function validInstant(year: number, month: number, day: number, hour = 0, minute = 0, second = 0, millis = 0): Instant | undefined {
  if (year < 1 || month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return undefined;
  const date = new Date(Date.UTC(2000, month - 1, day, hour, minute, second, millis));
  // Date.UTC reads years below 100 as 19xx; set the year itself.
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCDate() === day && date.getUTCMonth() === month - 1 ? date.getTime() : undefined;
}

/*
 * Python's strptime for the two formats upstream uses, with the regular expressions of its
 * `_strptime` (1-digit months, days, hours and minutes are accepted; the whole text must be
 * consumed; whitespace in the format matches any run of whitespace).
 */
const STRPTIME: Record<string, RegExp> = {
  "%Y-%m-%d": /^(\d\d\d\d)-(1[0-2]|0[1-9]|[1-9])-(3[01]|[12]\d|0[1-9]|[1-9]| [1-9])/,
  "%Y-%m-%d %H:%M": /^(\d\d\d\d)-(1[0-2]|0[1-9]|[1-9])-(3[01]|[12]\d|0[1-9]|[1-9]| [1-9])\s+(2[0-3]|[0-1]\d|\d):([0-5]\d|\d)/,
};

/** Python's `repr` of a string, as error messages quote it. */
export function pythonRepr(text: string): string {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  const escaped = text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/\t/g, "\\t").replace(/\r/g, "\\r");
  return quote + (quote === "'" ? escaped.replace(/'/g, "\\'") : escaped) + quote;
}

/** `datetime.strptime(text, format)` for `%Y-%m-%d` and `%Y-%m-%d %H:%M`, raising upstream's ValueError texts. */
export function strptime(text: string, format: "%Y-%m-%d" | "%Y-%m-%d %H:%M"): Instant {
  const match = STRPTIME[format]!.exec(text);
  if (match === null) throw new SimulatedToolError("ValueError", `time data ${pythonRepr(text)} does not match format ${pythonRepr(format)}`);
  if (match[0].length !== text.length) throw new SimulatedToolError("ValueError", `unconverted data remains: ${text.slice(match[0].length)}`);
  const [year, month, day, hour = 0, minute = 0] = match.slice(1).map((part) => Number(part.trim()));
  const instant = validInstant(year!, month!, day!, hour, minute);
  if (instant === undefined) throw new SimulatedToolError("ValueError", "day is out of range for month");
  return instant;
}

/** The date part (`YYYY-MM-DD`) of a stored datetime. */
export const dateOf = (iso: string): string => iso.slice(0, 10);

/**
 * The default clock for "now" timestamps: one second after the latest timestamp the
 * environment holds (e-mails, trash, files, the calendar's current day). Upstream uses the
 * wall clock; only "changed" and "later than before" matter to any check, and this keeps runs
 * deterministic while guaranteeing both.
 */
export function logicalNow(env: SecurityEnvironment): string {
  const stamps = [
    `${calendar(env)?.current_day ?? "1970-01-01"}T00:00:00`,
    ...(inbox(env)?.initial_emails ?? []).map((email) => email.timestamp),
    ...(inbox(env)?.trash ?? []).map((email) => email.timestamp),
    ...(drive(env)?.initial_files ?? []).map((file) => file.last_modified),
  ];
  const latest = Math.max(...stamps.map((stamp) => parseIso(stamp) ?? Number.NEGATIVE_INFINITY));
  return isoformat((Number.isFinite(latest) ? latest : 0) + 1000);
}

/** Where a workspace tool gets "now" (a canonical ISO datetime). */
export type WorkspaceClock = (env: SecurityEnvironment) => string;

// --- EmailStr --------------------------------------------------------------------------------

const NAME_CHARS = "[\\p{L}\\p{N}_!#$%&'*+\\-/=?^`{|}~]";
const PRETTY = new RegExp(`^\\s*(?:((?:${NAME_CHARS}+\\s+)*${NAME_CHARS}+)|"([^"]+)")?\\s*<(.+)>\\s*$`, "u");
const LOCAL_ATOM = /^[\p{L}\p{N}!#$%&'*+\-/=?^_`{|}~]+$/u;
const DOMAIN_LABEL = /^[\p{L}\p{N}-]+$/u;
const SPECIAL_USE = ["arpa", "invalid", "local", "localhost", "onion", "test"];

function emailProblem(address: string): string | undefined {
  const at = address.lastIndexOf("@");
  if (at < 0) return "An email address must have an @-sign.";
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  if (local === "") return "There must be something before the @-sign.";
  if (domain === "") return "There must be something after the @-sign.";
  if (local.startsWith(".")) return "An email address cannot start with a period.";
  if (local.endsWith(".")) return "An email address cannot have a period immediately before the @-sign.";
  if (local.includes("..")) return "An email address cannot have two periods in a row.";
  const badLocal = [...new Set([...local].filter((char) => char !== "." && !LOCAL_ATOM.test(char)))];
  if (badLocal.length > 0) return `The email address contains invalid characters before the @-sign: ${badLocal.join(", ")}.`;
  if (codePointLength(local) > 64) return `The email address is too long before the @-sign (${codePointLength(local) - 64} characters too many).`;
  if (domain.startsWith(".")) return "An email address cannot have a period immediately after the @-sign.";
  if (domain.endsWith(".")) return "An email address cannot end with a period.";
  if (domain.includes("..")) return "An email address cannot have two periods in a row.";
  const labels = domain.split(".");
  const badDomain = [...new Set([...domain].filter((char) => char !== "." && !DOMAIN_LABEL.test(char)))];
  if (badDomain.length > 0) return `The part after the @-sign contains invalid characters: ${badDomain.join(", ")}.`;
  if (labels.some((label) => label.startsWith("-"))) return "An email address cannot have a hyphen immediately after the @-sign.";
  if (labels.some((label) => label.endsWith("-"))) return "An email address cannot have a hyphen immediately before a period.";
  if (labels.length < 2) return "The part after the @-sign is not valid. It should have a period.";
  if (!/\p{L}$/u.test(labels[labels.length - 1]!)) return "The part after the @-sign is not valid. It is not within a valid top-level domain.";
  const lower = domain.toLowerCase();
  if (SPECIAL_USE.some((name) => lower === name || lower.endsWith(`.${name}`))) {
    return "The part after the @-sign is a special-use or reserved name that cannot be used with email.";
  }
  return undefined;
}

/**
 * An address as pydantic's `EmailStr` validates it: `Name <addr>` becomes `addr`,
 * surrounding whitespace is dropped, the domain is lower-cased and the local part kept; an
 * invalid address raises a ValidationError naming the field.
 */
export function normalizeEmail(raw: string, field: string): string {
  const pretty = PRETTY.exec(raw);
  const address = (pretty === null ? raw : pretty[3]!).trim();
  const problem = emailProblem(address);
  if (problem !== undefined) throw new SimulatedToolError("ValidationError", `1 validation error(s): ${field}: value is not a valid email address: ${problem}`);
  const at = address.lastIndexOf("@");
  return `${address.slice(0, at).normalize("NFC")}@${address.slice(at + 1).toLowerCase()}`;
}

/** Every address of a list normalised as EmailStr (the field name indexed as pydantic does). */
export const normalizeEmails = (raw: readonly string[], field: string): string[] => raw.map((address, index) => normalizeEmail(address, `${field}.${index}`));
