import type { JsonValue } from "@yoke/protocol";
import { describe, expect, it } from "vitest";
import { coerceArguments } from "./coerce.js";
import tools from "./data/workspace/tools.json" with { type: "json" };
import { SimulatedToolError, type SecurityEnvironment } from "./tool-support.js";
import type { JsonObject, ToolDescription } from "./types.js";
import { createWorkspaceImplementations, withWorkspaceDerivedFields, workspaceImplementations } from "./workspace-tools.js";

const ME = "me@home.example";
const email = (id: string, sender: string, recipients: string[], subject: string, extra: Partial<Record<string, JsonValue>> = {}) => ({
  id_: id,
  sender,
  recipients,
  cc: [],
  bcc: [],
  subject,
  body: `body of ${subject}`,
  status: sender === ME ? "sent" : "received",
  read: true,
  timestamp: "2030-01-02T09:00:00",
  attachments: [],
  ...extra,
});

/** A small workspace, ids out of order as upstream's lists are. */
function world(): SecurityEnvironment {
  const state = {
    inbox: {
      account_email: ME,
      initial_emails: [
        email("5", "friend@mail.example", [ME], "Party"),
        email("1", ME, ["colleague@work.example"], "Report"),
        email("3", "stranger@else.example", [ME], "Offer", { read: false }),
      ],
      contact_list: [
        { email: "friend@mail.example", name: "Friend" },
        { email: "colleague@work.example", name: "Colleague" },
        { email: "stranger@else.example", name: "Stranger" },
      ],
      trash: [],
    },
    calendar: {
      current_day: "2030-01-05",
      account_email: ME,
      initial_events: [
        {
          id_: "7",
          title: "Dentist",
          description: "check-up",
          start_time: "2030-01-06T10:00:00",
          end_time: "2030-01-06T11:30:00",
          location: null,
          participants: [ME, "friend@mail.example"],
          all_day: false,
          status: "confirmed",
        },
      ],
    },
    cloud_drive: {
      account_email: ME,
      initial_files: [
        { id_: "2", filename: "notes.txt", content: "héllo 👋", owner: ME, last_modified: "2030-01-03T08:00:00", shared_with: {} },
        { id_: "0", filename: "shared.doc", content: "plan", owner: "friend@mail.example", last_modified: "2030-01-01T08:00:00", shared_with: { [ME]: "r" } },
      ],
    },
  };
  return { state: withWorkspaceDerivedFields(state as unknown as JsonObject), dispatched: [] };
}

const descriptions = (tools as unknown as { tools: ToolDescription[] }).tools;

/** Calls a tool as the harness does: lenient validation, then the implementation; an error becomes its text. */
function call(env: SecurityEnvironment, name: string, raw: Record<string, unknown>, implementations = workspaceImplementations): JsonValue {
  const coerced = coerceArguments(descriptions.find((tool) => tool.name === name)!.parameters, raw);
  if (!coerced.ok) return `ValidationError: ${coerced.error}`;
  try {
    return implementations[name]!.run(env, coerced.value);
  } catch (error) {
    if (error instanceof SimulatedToolError) return error.message;
    throw error;
  }
}

const emails = (env: SecurityEnvironment) => (env.state.inbox as { initial_emails: Record<string, JsonValue>[] }).initial_emails;
const events = (env: SecurityEnvironment) => (env.state.calendar as { initial_events: Record<string, JsonValue>[] }).initial_events;
const files = (env: SecurityEnvironment) => (env.state.cloud_drive as { initial_files: Record<string, JsonValue>[] }).initial_files;

describe("workspace e-mail tools", () => {
  it("send_email: next id after the largest, EmailStr normalisation, null cc/bcc as [], a deterministic later timestamp", () => {
    const env = world();
    const sent = call(env, "send_email", { recipients: ["Pal <Pal@Mail.EXAMPLE>", " x@Y.example "], subject: "s", body: "b" }) as Record<string, JsonValue>;
    expect(sent).toMatchObject({
      id_: "6",
      sender: ME,
      recipients: ["Pal@mail.example", "x@y.example"],
      cc: [],
      bcc: [],
      status: "sent",
      read: true,
      attachments: [],
    });
    expect(sent.timestamp).toBe("2030-01-05T00:00:01");
    expect(emails(env).at(-1)).toEqual(sent);
    // The next e-mail is later still.
    expect((call(env, "send_email", { recipients: [ME], subject: "t", body: "c" }) as { timestamp: string }).timestamp).toBe("2030-01-05T00:00:02");
  });

  it("send_email: an invalid address or attachment is refused and nothing is stored", () => {
    const env = world();
    expect(call(env, "send_email", { recipients: ["nobody"], subject: "s", body: "b" })).toMatch(
      /^ValidationError: .*recipients\.0: value is not a valid email address: An email address must have an @-sign\./,
    );
    expect(call(env, "send_email", { recipients: ["a@b.example"], cc: ["a@mail.localhost"], subject: "s", body: "b" })).toMatch(/cc\.0: .*special-use/);
    expect(call(env, "send_email", { recipients: ["a@b.example"], subject: "s", body: "b", attachments: [{ file_id: "2" }] })).toBe(
      "ValueError: Attachment must have a 'type' field.",
    );
    expect(call(env, "send_email", { recipients: ["a@b.example"], subject: "s", body: "b", attachments: [{ type: "file" }] })).toBe(
      "ValueError: Attachment of type 'file' must have a 'file_id' field.",
    );
    expect(call(env, "send_email", { recipients: ["a@b.example"], subject: "s", body: "b", attachments: [{ type: "event" }] })).toBe(
      "ValueError: Attachment of type 'event' must have an 'event_details' field.",
    );
    expect(
      call(env, "send_email", { recipients: ["a@b.example"], subject: "s", body: "b", attachments: [{ type: "event", event_details: { title: "x" } }] }),
    ).toMatch(/^ValidationError: 6 validation error\(s\) for CalendarEvent: id_: Field required/);
    expect(emails(env)).toHaveLength(3);
  });

  it("send_email: attachments are file ids (not looked up) or events built from their details, datetimes canonical", () => {
    const env = world();
    const details = {
      id_: "x",
      title: "T",
      description: "",
      start_time: "2030-02-01 09:00",
      end_time: "2030-02-01T10:00:00",
      location: null,
      participants: ["A@B.example"],
    };
    const sent = call(env, "send_email", {
      recipients: "['a@b.example']",
      subject: "s",
      body: "b",
      attachments: [
        { type: "file", file_id: "99" },
        { type: "event", event_details: details },
      ],
    }) as { recipients: string[]; attachments: JsonValue[] };
    expect(sent.recipients).toEqual(["a@b.example"]);
    expect(sent.attachments).toEqual([
      "99",
      {
        id_: "x",
        title: "T",
        description: "",
        start_time: "2030-02-01T09:00:00",
        end_time: "2030-02-01T10:00:00",
        location: null,
        participants: ["A@b.example"],
        all_day: false,
        status: "confirmed",
      },
    ]);
  });

  it("delete_email moves it to the trash (replacing a same-id entry in place), and its id is free again when it was the largest", () => {
    const env = world();
    expect(call(env, "delete_email", { email_id: "5" })).toBe("Email with id 5 deleted successfully.");
    expect(call(env, "delete_email", { email_id: "5" })).toBe("ValueError: Email with ID '5' not found.");
    expect((call(env, "send_email", { recipients: [ME], subject: "again", body: "" }) as { id_: string }).id_).toBe("4");
    expect((call(env, "send_email", { recipients: [ME], subject: "again", body: "" }) as { id_: string }).id_).toBe("5");
    call(env, "delete_email", { email_id: "5" });
    const trash = (env.state.inbox as { trash: { id_: string; subject: string }[] }).trash;
    expect(trash.map((item) => [item.id_, item.subject])).toEqual([["5", "again"]]);
  });

  it("get_unread_emails returns the unread ones marked read, and marks them: a second call finds none", () => {
    const env = world();
    expect((call(env, "get_unread_emails", {}) as { id_: string; read: boolean }[]).map((item) => [item.id_, item.read])).toEqual([["3", true]]);
    expect(emails(env)[2]!.read).toBe(true);
    expect(call(env, "get_unread_emails", {})).toEqual([]);
  });

  it("searches: sender case-insensitively, query in subject or body, upstream's error texts", () => {
    const env = world();
    expect((call(env, "search_emails", { query: "BODY OF", sender: "FRIEND@mail.example" }) as { id_: string }[]).map((item) => item.id_)).toEqual(["5"]);
    expect((call(env, "search_emails", { query: "" }) as unknown[]).length).toBe(3);
    expect(call(env, "search_emails", { query: "nothing" })).toBe("ValueError: No emails found. Try with a different query.");
    expect(call(env, "search_contacts_by_name", { query: "zed" })).toBe("ValueError: Contact with name 'zed' not found.");
    expect(call(env, "search_contacts_by_email", { query: "zed" })).toBe("ValueError: Contact with email 'zed' not found.");
    expect(call(env, "get_sent_emails", {})).toHaveLength(1);
    expect(call(env, "get_received_emails", {})).toHaveLength(2);
    expect(call(env, "get_draft_emails", {})).toEqual([]);
  });
});

describe("workspace calendar tools", () => {
  it("parse dates as Python's strptime does, with its error texts", () => {
    const env = world();
    expect(call(env, "get_day_calendar_events", { day: "2030-1-6" })).toHaveLength(1);
    expect(call(env, "get_day_calendar_events", { day: "2030-01-07" })).toEqual([]);
    expect(call(env, "get_day_calendar_events", { day: "06/01/2030" })).toBe("ValueError: time data '06/01/2030' does not match format '%Y-%m-%d'");
    expect(call(env, "get_day_calendar_events", { day: "2030-01-06T10" })).toBe("ValueError: unconverted data remains: T10");
    expect(call(env, "get_day_calendar_events", { day: "2030-02-30" })).toBe("ValueError: day is out of range for month");
    expect(call(env, "search_calendar_events", { query: "CHECK", date: "2030-01-06" })).toHaveLength(1);
    expect(call(env, "search_calendar_events", { query: "x" })).toBe("ValueError: No events found. Try with a different query.");
    expect(call(env, "get_current_day", {})).toBe("2030-01-05");
  });

  it("create_calendar_event: the account joins, raw duplicates collapse, an invitation goes out carrying the event itself", () => {
    const env = world();
    const created = call(env, "create_calendar_event", {
      title: "Lunch",
      start_time: "2030-01-07 12:00",
      end_time: "2030-01-07 13:00",
      participants: ["pal@x.example", "pal@x.example"],
    });
    expect(created).toEqual({
      id_: "8",
      title: "Lunch",
      description: "",
      start_time: "2030-01-07T12:00:00",
      end_time: "2030-01-07T13:00:00",
      location: null,
      participants: ["pal@x.example", ME],
      all_day: false,
      status: "confirmed",
    });
    const invitation = emails(env).at(-1)!;
    expect(invitation).toMatchObject({ id_: "6", recipients: ["pal@x.example", "pal@x.example", ME], subject: "Invitation: Lunch", body: "" });
    // The attachment is the calendar's own event object: a later change shows in it.
    call(env, "reschedule_calendar_event", { event_id: "8", new_start_time: "2030-01-08 12:00" });
    expect((invitation.attachments as { start_time: string }[])[0]!.start_time).toBe("2030-01-08T12:00:00");
    expect(call(env, "create_calendar_event", { title: "x", start_time: "2030-01-07 12:00", end_time: "2030-01-07 13:00", participants: ["bad@"] })).toMatch(
      /^ValidationError/,
    );
    expect(call(env, "create_calendar_event", { title: "x", start_time: "2030-01-07", end_time: "2030-01-07 13:00" })).toBe(
      "ValueError: time data '2030-01-07' does not match format '%Y-%m-%d %H:%M'",
    );
    expect(events(env)).toHaveLength(2);
  });

  it("reschedule keeps the duration without an end time and mails upstream's literal subject; cancel keeps the event and mails the participants", () => {
    const env = world();
    const moved = call(env, "reschedule_calendar_event", { event_id: "7", new_start_time: "2030-01-09 23:00" }) as Record<string, JsonValue>;
    expect([moved.start_time, moved.end_time]).toEqual(["2030-01-09T23:00:00", "2030-01-10T00:30:00"]);
    expect(emails(env).at(-1)).toMatchObject({
      recipients: [ME, "friend@mail.example"],
      subject: "Rescheduled: '{event.title}'",
      body: "The event has been rescheduled. It will start on  2030-01-09 at 23:00:00 and end on 2030-01-10 at 00:30:00.",
    });
    const explicit = call(env, "reschedule_calendar_event", { event_id: "7", new_start_time: "2030-01-09 09:00", new_end_time: "2030-01-09 09:15" }) as Record<
      string,
      JsonValue
    >;
    expect(explicit.end_time).toBe("2030-01-09T09:15:00");
    expect(call(env, "reschedule_calendar_event", { event_id: "70", new_start_time: "2030-01-09 09:00" })).toBe("ValueError: Event with ID '70' not found.");
    expect(call(env, "cancel_calendar_event", { event_id: "7" })).toBe("Event with ID 7 has been canceled and participants have been notified.");
    expect(events(env)[0]).toMatchObject({ id_: "7", status: "canceled" });
    expect(emails(env).at(-1)).toMatchObject({ subject: "Canceled: 'Dentist'", body: "The event has been canceled." });
  });

  it("add_calendar_event_participants appends the strings as given and sends nothing", () => {
    const env = world();
    const updated = call(env, "add_calendar_event_participants", { event_id: "7", participants: ["Odd Case@X.example", ME] }) as { participants: string[] };
    expect(updated.participants).toEqual([ME, "friend@mail.example", "Odd Case@X.example", ME]);
    expect(emails(env)).toHaveLength(3);
  });
});

describe("workspace drive tools", () => {
  it("size counts code points; append changes content, size and a later modification time", () => {
    const env = world();
    expect(files(env)[0]!.size).toBe(7);
    const appended = call(env, "append_to_file", { file_id: "2", content: "🙂!" }) as Record<string, JsonValue>;
    expect([appended.content, appended.size, appended.last_modified]).toEqual(["héllo 👋🙂!", 9, "2030-01-05T00:00:01"]);
    expect(call(env, "append_to_file", { file_id: "9", content: "x" })).toBe("ValueError: File with ID '9' not found.");
  });

  it("create, share (permission checked first), delete, search, with a caller's clock", () => {
    const env = world();
    const tools = createWorkspaceImplementations({ now: () => "2031-06-01T12:00:00" });
    expect(call(env, "create_file", { filename: "new.txt", content: "abc" }, tools)).toEqual({
      id_: "3",
      filename: "new.txt",
      content: "abc",
      owner: ME,
      last_modified: "2031-06-01T12:00:00",
      shared_with: {},
      size: 3,
    });
    expect(call(env, "share_file", { file_id: "99", email: "x@y.example", permission: "admin" })).toMatch(
      /^ValidationError: .*permission: Input should be 'r' or 'rw'/,
    );
    expect((call(env, "share_file", { file_id: "3", email: "X@Y", permission: "rw" }) as { shared_with: JsonValue }).shared_with).toEqual({ "X@Y": "rw" });
    expect((call(env, "search_files_by_filename", { filename: "TXT" }) as unknown[]).length).toBe(2);
    expect(call(env, "search_files", { query: "zzz" })).toBe("ValueError: No files found with the given query ('zzz'). Try a different search term.");
    expect((call(env, "delete_file", { file_id: "3" }) as { id_: string }).id_).toBe("3");
    expect(call(env, "get_file_by_id", { file_id: "3" })).toBe("ValueError: File with ID '3' not found.");
    expect(call(env, "list_files", {})).toHaveLength(2);
  });
});

describe("workspace structured outputs", () => {
  it("repeat only the account's own records under `own` / `known`, the only place addresses and names can be trusted", () => {
    const env = world();
    const mail = workspaceImplementations.search_emails!;
    const listing = mail.structured!(call(env, "search_emails", { query: "" }), env) as { own: { id_: string }[] };
    expect(listing.own.map((item) => item.id_)).toEqual(["1"]);
    const contacts = workspaceImplementations.search_contacts_by_name!;
    expect((contacts.structured!(call(env, "search_contacts_by_name", { query: "" }), env) as { known: { email: string }[] }).known).toEqual([
      { email: "colleague@work.example", name: "Colleague" },
    ]);
    const drive = workspaceImplementations.list_files!;
    expect((drive.structured!(call(env, "list_files", {}), env) as { own: { id_: string }[] }).own.map((file) => file.id_)).toEqual(["2"]);
  });
});
