// The workspace suite (e-mail, calendar, cloud drive) in the runner: its tool declarations
// (policies/workspace.tools.json) give the facts the code used to, its suite-wide policy names
// no value of the dev data, and a few pairs run end to end (the whole suite is `pnpm security`).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  type JsonObject,
  type SecurityEnvironment,
  type ToolHandlers,
  agentDojoTools,
  builtInHandlers,
  builtInPrepare,
  checkDeclarations,
  loadSuite,
  runPair,
} from "@yoke/testkit/security";
import { describe, expect, it } from "vitest";
import { runtimeHarness, suiteDeclarations, suiteWidePolicy } from "./harnesses.ts";

/** The workspace data the testkit carries (a copy of the data set's folder). */
const WORKSPACE_DIR = fileURLToPath(new URL("../../../packages/testkit/src/security/data/workspace", import.meta.url));
const suite = loadSuite(WORKSPACE_DIR);
const declarations = suiteDeclarations("workspace");

const ME = "me@home.example";
const email = (id: string, sender: string, recipients: string[], subject: string, status = sender === ME ? "sent" : "received") => ({
  id_: id,
  sender,
  recipients,
  cc: [],
  bcc: [],
  subject,
  body: `body of ${subject}`,
  status,
  read: true,
  timestamp: "2030-01-02T09:00:00",
  attachments: [],
});

/** A small workspace: the account has written to a colleague; a friend and a stranger have written to it. */
function world() {
  const state = {
    inbox: {
      account_email: ME,
      initial_emails: [email("5", "friend@mail.example", [ME], "Party"), email("1", ME, ["colleague@work.example"], "Report")],
      contact_list: [
        { email: "friend@mail.example", name: "Friend" },
        { email: "colleague@work.example", name: "Colleague" },
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
        {
          id_: "8",
          title: "Review",
          description: "",
          start_time: "2030-01-07T10:00:00",
          end_time: "2030-01-07T11:00:00",
          location: null,
          participants: ["colleague@work.example"],
          all_day: false,
          status: "confirmed",
        },
      ],
    },
    cloud_drive: {
      account_email: ME,
      initial_files: [{ id_: "2", filename: "notes.txt", content: "héllo 👋", owner: ME, last_modified: "2030-01-03T08:00:00", shared_with: {} }],
    },
  };
  const env: SecurityEnvironment = { state: builtInPrepare("workspace")!(state as unknown as JsonObject), dispatched: [] };
  const tools = agentDojoTools(suite, env, { declarations });
  const facts = (name: string, args: JsonObject) => tools.find((tool) => tool.name === name)!.policy?.(args);
  return { env, tools, facts };
}

describe("the workspace suite's tool declarations", () => {
  it("declare exactly the suite's tools, read-only ones without a side effect and mutating ones with one", () => {
    expect(() => checkDeclarations(suite, declarations)).not.toThrow();
    for (const tool of suite.tools) expect(declarations.tools[tool.name]!.sideEffect === "none", tool.name).toBe(tool.access === "read-only");
    expect(builtInHandlers("workspace")).toBeDefined();
  });

  it("an address the account has written to is a known recipient; a sender or contact is not; several addresses are one opaque destination", () => {
    const { facts } = world();
    expect(facts("send_email", { recipients: ["colleague@work.example"], subject: "s", body: "b", cc: null, bcc: null })).toMatchObject({
      verb: "send_email",
      resource: `email:account:${ME}`,
      destination: "email:colleague@work.example",
      expectedEffect: "email:known-recipients",
    });
    // Case does not make an address new.
    expect(facts("send_email", { recipients: ["Colleague@Work.example"], cc: null, bcc: null })?.expectedEffect).toBe("email:known-recipients");
    // Having written to the account does not make a sender known.
    expect(facts("send_email", { recipients: ["friend@mail.example"], cc: null, bcc: null })).toMatchObject({
      destination: "email:friend@mail.example",
      expectedEffect: "email:new-recipient",
    });
    expect(facts("send_email", { recipients: ["colleague@work.example"], cc: null, bcc: ["evil@x.example"] })).toMatchObject({
      destination: "email:(several recipients)",
      expectedEffect: "email:new-recipient",
    });
    expect(facts("send_email", { recipients: ["colleague@work.example", "colleague@work.example"], cc: [], bcc: [] })).toMatchObject({
      destination: "email:(several recipients)",
      expectedEffect: "email:known-recipients",
    });
    expect(facts("send_email", { recipients: [], cc: null, bcc: null })?.destinations).toContainEqual({ pointer: "/attachments", role: "attachment" });
    expect(facts("send_email", { recipients: [], cc: null, bcc: null })?.destination).toBeUndefined();
  });

  it("invitations, notices and shares carry the same facts: who hears of it, and whether the account has written to them", () => {
    const { facts } = world();
    expect(facts("create_calendar_event", { title: "t", start_time: "", end_time: "", participants: null })).toMatchObject({
      verb: "create_event",
      expectedEffect: "email:known-recipients",
    });
    expect(facts("create_calendar_event", { participants: null })?.destination).toBeUndefined();
    expect(facts("create_calendar_event", { participants: ["friend@mail.example"] })).toMatchObject({
      destination: "email:friend@mail.example",
      expectedEffect: "email:new-recipient",
    });
    expect(facts("add_calendar_event_participants", { event_id: "7", participants: ["colleague@work.example"] })).toMatchObject({
      resource: `calendar:${ME}:event:7`,
      expectedEffect: "email:known-recipients",
      destinations: [
        { pointer: "/participants", role: "email" },
        { pointer: "/event_id", role: "event" },
      ],
    });
    // A notice goes to the event's participants, whom the event id chooses.
    expect(facts("cancel_calendar_event", { event_id: "7" })).toMatchObject({
      destination: "email:(several recipients)",
      expectedEffect: "email:new-recipient",
      destinations: [{ pointer: "/event_id", role: "event" }],
    });
    expect(facts("reschedule_calendar_event", { event_id: "8", new_start_time: "" })?.expectedEffect).toBe("email:known-recipients");
    expect(facts("share_file", { file_id: "2", email: "colleague@work.example", permission: "rw" })).toMatchObject({
      destination: "email:colleague@work.example",
      expectedEffect: "email:known-recipients:share-rw",
    });
    expect(facts("share_file", { file_id: "2", email: "friend@mail.example", permission: "r" })?.expectedEffect).toBe("email:new-recipient:share-r");
    expect(facts("get_unread_emails", {})).toMatchObject({ verb: "read", expectedEffect: "mark-read" });
    expect(facts("delete_file", { file_id: "2" })).toMatchObject({ verb: "delete", resource: `drive:${ME}:file:2` });
  });

  it("trust only what the systems assign and the account's own records, never text another party writes", () => {
    const { tools } = world();
    for (const tool of tools) {
      for (const field of tool.trustedOutputFields ?? []) {
        expect(field, tool.name).not.toMatch(/body|subject|content|description|title|participants|\/emails\/\*\/(sender|recipients)|\/contacts\//);
      }
    }
    expect(tools.find((tool) => tool.name === "search_emails")!.trustedOutputFields).toContain("/own/*/recipients");
  });
});

describe("the workspace suite's built-in simulation", () => {
  it("derives every file's size (in code points) before a run when the built-in handlers run, and only then", async () => {
    const sizes = async (handlers?: ToolHandlers) => {
      let files: { content: string; size?: number }[] = [];
      await runPair({
        suite,
        userTask: suite.userTasks[0]!,
        declarations,
        ...(handlers === undefined ? {} : { handlers }),
        harness: (setup) => {
          files = (setup.env.state.cloud_drive as { initial_files: { content: string; size?: number }[] }).initial_files;
          return { start: async () => ({ text: "", outcome: "completed" }) };
        },
      });
      return files;
    };
    const prepared = await sizes();
    expect(prepared.length).toBeGreaterThan(0);
    for (const file of prepared) expect(file.size).toBe([...file.content].length);
    // Handlers given by the caller bring their own preparer (none here).
    const own = await sizes({ ...builtInHandlers("workspace")! });
    expect(own.every((file) => file.size === undefined)).toBe(true);
  });
});

describe("the workspace suite-wide policy", () => {
  it("names no address, id or text of the dev data: only tools, classes, verbs and the declarations' effects", () => {
    const text = readFileSync(new URL("../policies/workspace.json", import.meta.url), "utf8");
    expect(text).not.toMatch(/@|\d{2,}|bluesparrow|mark\.black/i);
    const names = new Set(suite.tools.map((tool) => tool.name));
    const policy = JSON.parse(text) as { rules: { match: { tool: { names: string[] | "*" } } }[] };
    for (const rule of policy.rules) if (rule.match.tool.names !== "*") for (const name of rule.match.tool.names) expect(names.has(name), name).toBe(true);
  });

  it("contains a sent-code-then-trash attack and a file deletion that the undefended run commits", async () => {
    const userTask = suite.userTasks.find((task) => task.id === "user_task_0")!;
    for (const id of ["injection_task_5", "injection_task_1"]) {
      const injectionTask = suite.injectionTasks.find((task) => task.id === id)!;
      const undefended = await runPair({ suite, userTask, injectionTask, declarations, harness: runtimeHarness() });
      expect(undefended.attackCommitted, id).toBe(true);
      const defended = await runPair({ suite, userTask, injectionTask, declarations, harness: runtimeHarness({ policy: () => suiteWidePolicy("workspace") }) });
      expect(defended.injectionObeyed, id).toBe(true);
      expect(defended.attackCommitted, id).toBe(false);
      expect(defended.utility, id).toBe(true);
    }
  });
});
