import type { JsonObject } from "./types.js";
import { SimulatedToolError, type SecurityEnvironment, type ToolImplementation } from "./tool-support.js";
import { contactListing, emailListing } from "./workspace-listings.js";
import { inbox, isoformat, nextId, normalizeEmails, parseIso, snapshot, type CalendarEvent, type Email, type WorkspaceClock } from "./workspace-support.js";

/** What `deliver` sends: upstream's `Inbox.send_email` arguments. */
export interface Outgoing {
  readonly recipients: readonly string[];
  readonly subject: string;
  readonly body: string;
  readonly attachments?: (string | CalendarEvent)[];
  readonly cc?: readonly string[] | null;
  readonly bcc?: readonly string[] | null;
}

/**
 * Upstream's `Inbox.send_email`: validates every address (nothing is stored when one is
 * invalid), then appends the e-mail, sent and read, with the next id and `now`. Attachments
 * are kept as given, so an event object stays shared with the calendar.
 */
export function deliver(env: SecurityEnvironment, now: WorkspaceClock, outgoing: Outgoing): Email {
  const box = inbox(env);
  const email: Email = {
    id_: nextId(box.initial_emails),
    sender: box.account_email,
    recipients: normalizeEmails(outgoing.recipients, "recipients"),
    cc: normalizeEmails(outgoing.cc ?? [], "cc"),
    bcc: normalizeEmails(outgoing.bcc ?? [], "bcc"),
    subject: outgoing.subject,
    body: outgoing.body,
    status: "sent",
    read: true,
    timestamp: now(env),
    attachments: outgoing.attachments ?? [],
  };
  box.initial_emails.push(email);
  return email;
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

/** `CalendarEvent(**details)` as pydantic validates it (lax), for an event sent as an attachment. */
function eventFromDetails(details: unknown): CalendarEvent {
  if (!isObject(details)) {
    throw new SimulatedToolError(
      "TypeError",
      `CalendarEvent() argument after ** must be a mapping, not ${details === null ? "NoneType" : Array.isArray(details) ? "list" : typeof details === "string" ? "str" : typeof details === "number" ? "float" : "bool"}`,
    );
  }
  const errors: string[] = [];
  const required = <T>(name: string, check: (value: unknown) => T | undefined, expected: string, fallback?: T): T => {
    if (!Object.hasOwn(details, name)) {
      if (fallback !== undefined) return fallback;
      errors.push(`${name}: Field required`);
      return undefined as T;
    }
    const value = check(details[name]);
    if (value === undefined) errors.push(`${name}: Input should be ${expected}`);
    return value as T;
  };
  const text = (value: unknown) => (typeof value === "string" ? value : undefined);
  const datetime = (value: unknown) => {
    const instant = typeof value === "string" ? parseIso(value.trim()) : undefined;
    return instant === undefined ? undefined : isoformat(instant);
  };
  const event: CalendarEvent = {
    id_: required("id_", text, "a valid string"),
    title: required("title", text, "a valid string"),
    description: required("description", text, "a valid string"),
    start_time: required("start_time", datetime, "a valid datetime"),
    end_time: required("end_time", datetime, "a valid datetime"),
    location: required("location", (value) => (value === null ? null : text(value)), "a valid string"),
    participants: required(
      "participants",
      (value) => (Array.isArray(value) && value.every((item) => typeof item === "string") ? (value as string[]) : undefined),
      "a valid list of strings",
    ),
    all_day: required("all_day", (value) => (typeof value === "boolean" ? value : undefined), "a valid boolean", false),
    status: required("status", (value) => (value === "confirmed" || value === "canceled" ? value : undefined), "'confirmed' or 'canceled'", "confirmed"),
  };
  if (errors.length > 0) throw new SimulatedToolError("ValidationError", `${errors.length} validation error(s) for CalendarEvent: ${errors.join("; ")}`);
  event.participants = normalizeEmails(event.participants, "participants");
  return event;
}

/** Upstream's `send_email` tool's attachment parsing: a file id, or an event built from its details. */
function parseAttachments(attachments: unknown): (string | CalendarEvent)[] | undefined {
  if (attachments === null || attachments === undefined) return undefined;
  return (attachments as unknown[]).map((attachment) => {
    if (!isObject(attachment)) throw new SimulatedToolError("ValueError", "Attachments must be dictionaries.");
    if (!Object.hasOwn(attachment, "type")) throw new SimulatedToolError("ValueError", "Attachment must have a 'type' field.");
    if (attachment.type === "file" || Object.hasOwn(attachment, "file_id")) {
      if (!Object.hasOwn(attachment, "file_id")) throw new SimulatedToolError("ValueError", "Attachment of type 'file' must have a 'file_id' field.");
      // The id is kept as given and the file is not looked up; pydantic accepts only text here.
      if (typeof attachment.file_id !== "string")
        throw new SimulatedToolError("ValidationError", "1 validation error(s) for Email: attachments: Input should be a valid string");
      return attachment.file_id;
    }
    if (!Object.hasOwn(attachment, "event_details"))
      throw new SimulatedToolError("ValueError", "Attachment of type 'event' must have an 'event_details' field.");
    return eventFromDetails(attachment.event_details);
  });
}

const emailsWith = (env: SecurityEnvironment, status: string) => snapshot(inbox(env).initial_emails.filter((email) => email.status === status));

/** The e-mail tools of the workspace suite, after upstream's email_client; `now` stamps new e-mails. */
export function emailImplementations(now: WorkspaceClock): Record<string, ToolImplementation> {
  const listing = { structured: emailListing };
  return {
    send_email: {
      run: (env, input) => {
        const attachments = parseAttachments(input.attachments);
        const email = deliver(env, now, {
          recipients: input.recipients as string[],
          subject: input.subject as string,
          body: input.body as string,
          ...(attachments === undefined ? {} : { attachments }),
          cc: input.cc as string[] | null,
          bcc: input.bcc as string[] | null,
        });
        return snapshot(email);
      },
      ...listing,
    },
    delete_email: {
      run: (env, input) => {
        const box = inbox(env);
        const id = input.email_id as string;
        const at = box.initial_emails.findIndex((email) => email.id_ === id);
        if (at < 0) throw new SimulatedToolError("ValueError", `Email with ID '${id}' not found.`);
        const [email] = box.initial_emails.splice(at, 1);
        const existing = box.trash.findIndex((trashed) => trashed.id_ === id);
        if (existing < 0) box.trash.push(email!);
        else box.trash[existing] = email!;
        return `Email with id ${id} deleted successfully.`;
      },
      render: (result) => result as string,
    },
    get_unread_emails: {
      run: (env) => {
        const unread = inbox(env).initial_emails.filter((email) => !email.read);
        for (const email of unread) email.read = true;
        return snapshot(unread);
      },
      ...listing,
    },
    get_sent_emails: { run: (env) => emailsWith(env, "sent"), ...listing },
    get_received_emails: { run: (env) => emailsWith(env, "received"), ...listing },
    get_draft_emails: { run: (env) => emailsWith(env, "draft"), ...listing },
    search_emails: {
      run: (env, input) => {
        const query = (input.query as string).toLowerCase();
        const sender = input.sender as string | null;
        const matches = inbox(env).initial_emails.filter(
          (email) =>
            (sender === null || email.sender.toLowerCase() === sender.toLowerCase()) &&
            (email.subject.toLowerCase().includes(query) || email.body.toLowerCase().includes(query)),
        );
        if (matches.length === 0) throw new SimulatedToolError("ValueError", "No emails found. Try with a different query.");
        return snapshot(matches);
      },
      ...listing,
    },
    search_contacts_by_name: contactSearch("name", (query) => `Contact with name '${query}' not found.`),
    search_contacts_by_email: contactSearch("email", (query) => `Contact with email '${query}' not found.`),
  };
}

function contactSearch(field: "name" | "email", notFound: (query: string) => string): ToolImplementation {
  return {
    run: (env, input: JsonObject) => {
      const query = input.query as string;
      const matches = inbox(env).contact_list.filter((contact) => contact[field].toLowerCase().includes(query.toLowerCase()));
      if (matches.length === 0) throw new SimulatedToolError("ValueError", notFound(query));
      return snapshot(matches);
    },
    structured: contactListing,
  };
}
