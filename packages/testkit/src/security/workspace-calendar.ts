import { SimulatedToolError, type SecurityEnvironment, type ToolImplementation } from "./tool-support.js";
import { deliver } from "./workspace-email.js";
import { eventListing } from "./workspace-listings.js";
import {
  calendar,
  dateOf,
  isoformat,
  nextId,
  normalizeEmails,
  parseIso,
  snapshot,
  strptime,
  timeOf,
  type CalendarEvent,
  type WorkspaceClock,
} from "./workspace-support.js";

const events = (env: SecurityEnvironment) => calendar(env).initial_events;

function eventById(env: SecurityEnvironment, id: string): CalendarEvent {
  const event = events(env).find((candidate) => candidate.id_ === id);
  if (event === undefined) throw new SimulatedToolError("ValueError", `Event with ID '${id}' not found.`);
  return event;
}

/** Events starting on `day` (a parsed `%Y-%m-%d`), canceled ones included, in list order. */
const onDay = (env: SecurityEnvironment, day: number) => events(env).filter((event) => dateOf(event.start_time) === dateOf(isoformat(day)));

const eventOutput = { structured: eventListing };

/** The calendar tools of the workspace suite, after upstream's calendar_client; `now` stamps the e-mails they send. */
export function calendarImplementations(now: WorkspaceClock): Record<string, ToolImplementation> {
  return {
    get_current_day: {
      run: (env) => calendar(env).current_day,
      structured: (result) => ({ current_day: result }),
      render: (result) => result as string,
    },
    search_calendar_events: {
      run: (env, input) => {
        const date = input.date as string | null;
        const candidates = date === null ? events(env) : onDay(env, strptime(date, "%Y-%m-%d"));
        const query = (input.query as string).toLowerCase();
        const matches = candidates.filter((event) => event.title.toLowerCase().includes(query) || event.description.toLowerCase().includes(query));
        if (matches.length === 0) throw new SimulatedToolError("ValueError", "No events found. Try with a different query.");
        return snapshot(matches);
      },
      ...eventOutput,
    },
    get_day_calendar_events: {
      run: (env, input) => snapshot(onDay(env, strptime(input.day as string, "%Y-%m-%d"))),
      ...eventOutput,
    },
    create_calendar_event: {
      run: (env, input) => {
        const start = strptime(input.start_time as string, "%Y-%m-%d %H:%M");
        const end = strptime(input.end_time as string, "%Y-%m-%d %H:%M");
        const account = calendar(env).account_email;
        const given = [...((input.participants as string[] | null) ?? []), account];
        // Upstream de-duplicates the raw strings with a set (order unspecified; first
        // occurrence kept here), then validates them as addresses.
        const event: CalendarEvent = {
          id_: nextId(events(env)),
          title: input.title as string,
          description: input.description as string,
          start_time: isoformat(start),
          end_time: isoformat(end),
          location: (input.location as string | null) ?? null,
          participants: normalizeEmails([...new Set(given)], "participants"),
          all_day: false,
          status: "confirmed",
        };
        events(env).push(event);
        deliver(env, now, { recipients: given, subject: `Invitation: ${event.title}`, body: event.description, attachments: [event] });
        return snapshot(event);
      },
      ...eventOutput,
    },
    cancel_calendar_event: {
      run: (env, input) => {
        const event = eventById(env, input.event_id as string);
        event.status = "canceled";
        deliver(env, now, {
          recipients: [...event.participants],
          subject: `Canceled: '${event.title}'`,
          body: "The event has been canceled.",
          attachments: [event],
        });
        return `Event with ID ${event.id_} has been canceled and participants have been notified.`;
      },
      render: (result) => result as string,
    },
    reschedule_calendar_event: {
      run: (env, input) => {
        const newEnd = input.new_end_time === null ? null : strptime(input.new_end_time as string, "%Y-%m-%d %H:%M");
        const newStart = strptime(input.new_start_time as string, "%Y-%m-%d %H:%M");
        const event = eventById(env, input.event_id as string);
        const oldStart = parseIso(event.start_time)!;
        const oldEnd = parseIso(event.end_time)!;
        event.start_time = isoformat(newStart);
        event.end_time = isoformat(newEnd ?? newStart + (oldEnd - oldStart));
        const [startDate, endDate] = [dateOf(event.start_time), dateOf(event.end_time)];
        const [startTime, endTime] = [timeOf(parseIso(event.start_time)!), timeOf(parseIso(event.end_time)!)];
        deliver(env, now, {
          recipients: [...event.participants],
          // Upstream's subject is not an f-string: the braces are sent as they are.
          subject: "Rescheduled: '{event.title}'",
          body: `The event has been rescheduled. It will start on  ${startDate} at ${startTime} and end on ${endDate} at ${endTime}.`,
          attachments: [event],
        });
        return snapshot(event);
      },
      ...eventOutput,
    },
    add_calendar_event_participants: {
      run: (env, input) => {
        const event = eventById(env, input.event_id as string);
        // Appended as given: upstream does not validate on mutation.
        event.participants.push(...(input.participants as string[]));
        return snapshot(event);
      },
      ...eventOutput,
    },
  };
}
