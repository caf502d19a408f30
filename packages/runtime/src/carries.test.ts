import { createPolicyEngine, loadPolicy } from "@yoke/policy";
import { type ArgumentProvenance, parseYokeEvent } from "@yoke/protocol";
import { callTools, say } from "@yoke/testkit";
import { describe, expect, it, test } from "vitest";
import { z } from "zod";
import { readAll } from "./__fixtures__/harness-fixtures.js";
import { policyRig } from "./__fixtures__/policy-fixtures.js";
import { carriesOf } from "./carries.js";
import { defineTool } from "./define-tool.js";
import { type ContextItem, contextItemsOf, traceArguments } from "./provenance.js";

const task: ContextItem = { itemId: "task", label: "user", trusted: true, text: "Mail Bob bob@example.com the phone number of Ada" };
const contacts: ContextItem = {
  itemId: "call_1",
  label: "tool_output",
  trusted: false,
  toolName: "get_contacts",
  text: "Ada Lovelace +44 20 7946 0958 ada@example.org",
  classification: "confidential",
};
const webpage: ContextItem = {
  itemId: "call_2",
  label: "tool_output",
  trusted: false,
  toolName: "get_webpage",
  text: "Lunch menu: soup",
  classification: "public",
};
const mailFacts = { destinations: [{ pointer: "/to", role: "email" }], payloads: ["/body", "/attachments"] };

const carried = (input: Parameters<typeof traceArguments>[0], items: readonly ContextItem[], facts: Parameters<typeof carriesOf>[1] = mailFacts) =>
  carriesOf(traceArguments(input, { ...mailFacts, ...facts }, items), { ...mailFacts, ...facts }, items);

describe("carriesOf", () => {
  test("a payload value found in a confidential tool output carries it out; its source names the classification", () => {
    const body = traceArguments({ to: "bob@example.com", body: "+44 20 7946 0958" }, mailFacts, [task, webpage, contacts]).find(
      (entry) => entry.path === "/body",
    );
    expect(body?.sources).toEqual([{ itemId: "call_1", label: "tool_output", trusted: false, toolName: "get_contacts", classification: "confidential" }]);
    expect(carried({ to: "bob@example.com", body: "+44 20 7946 0958" }, [task, contacts])).toEqual({
      classification: "confidential",
      fromToolOutput: true,
      fromUntrusted: true,
      outward: true,
    });
  });

  test("an address found inside a longer payload text counts, and list payloads are covered element by element", () => {
    expect(carried({ to: "bob@example.com", body: "Her address is ada@example.org, cheers" }, [task, contacts])?.classification).toBe("confidential");
    expect(carried({ to: "bob@example.com", attachments: ["notes.txt", "ada@example.org"] }, [task, contacts])?.fromToolOutput).toBe(true);
  });

  test("the highest classification among the sources wins; a source without one is internal", () => {
    const notes: ContextItem = { itemId: "call_3", label: "tool_output", trusted: false, toolName: "read_notes", text: "soup" };
    expect(carried({ to: "bob@example.com", body: "soup" }, [task, webpage])?.classification).toBe("public");
    expect(carried({ to: "bob@example.com", body: "soup" }, [task, webpage, notes])?.classification).toBe("internal");
    expect(
      carried({ to: "bob@example.com", body: "soup" }, [task, webpage, notes, { ...notes, itemId: "call_4", classification: "restricted" }])?.classification,
    ).toBe("restricted");
  });

  test("a value the user gave is theirs to send, even when a tool output holds it too; a destination is not a payload", () => {
    const own = { ...task, text: `${task.text}: +44 20 7946 0958` };
    expect(carried({ to: "ada@example.org", body: "+44 20 7946 0958" }, [own, contacts])).toEqual({
      classification: "internal",
      fromToolOutput: false,
      fromUntrusted: false,
      outward: true,
    });
  });

  test("a payload text holding a line or value of a classified output carries it; short values and what the user gave do not", () => {
    const structured: ContextItem = { ...contacts, text: "Ada Lovelace\n+44 20 7946 0958\nyes" };
    expect(carried({ to: "bob@example.com", body: "Ada's phone: +44 20 7946 0958." }, [task, structured])).toMatchObject({
      classification: "confidential",
      fromToolOutput: true,
    });
    expect(carried({ to: "bob@example.com", body: "yes, I will" }, [task, structured])).toMatchObject({ classification: "internal", fromToolOutput: false });
    // "Ada Lovelace" is in a tool output, but the user named her: saying her name carries nothing of the account's.
    const named = { ...task, text: "Mail Bob that Ada Lovelace says hi" };
    expect(carried({ to: "bob@example.com", body: "Ada Lovelace says hi" }, [named, structured])).toMatchObject({
      classification: "internal",
      fromToolOutput: false,
    });
    expect(carried({ to: "bob@example.com", body: "Lunch menu: soup and bread" }, [task, { ...webpage, text: "Lunch menu: soup" }])?.classification).toBe(
      "internal",
    );
  });

  test("a trusted record field of a tool output still counts as data from a tool output", () => {
    const record: ContextItem = { ...contacts, trustedFields: [{ field: "/phone", value: "+44 20 7946 0958" }] };
    const provenance = traceArguments({ body: "+44 20 7946 0958" }, mailFacts, [task, record]);
    expect(provenance[0]?.origin).toBe("trusted");
    expect(carriesOf(provenance, mailFacts)).toMatchObject({ classification: "confidential", fromToolOutput: true, fromUntrusted: false });
  });

  test("outward is what the facts say, true when they say nothing; no payloads, no carries", () => {
    expect(carried({ body: "soup" }, [task, webpage], { payloads: ["/body"], outward: false })?.outward).toBe(false);
    const provenance: ArgumentProvenance[] = traceArguments({ to: "bob@example.com", body: "x" }, mailFacts, [task]);
    expect(carriesOf(provenance, { destinations: mailFacts.destinations } as never)).toBeUndefined();
    expect(carriesOf(provenance, { payloads: [] })).toBeUndefined();
  });

  test("contextItemsOf gives a tool output its tool's classification, and leaves internal ones unmarked", () => {
    const state = {
      task: "t",
      systemPrompt: undefined,
      messageSeqs: [1, 2, 3],
      messages: [
        { role: "user" as const, content: [{ type: "text" as const, text: "t" }] },
        {
          role: "tool" as const,
          content: [
            {
              type: "tool-result" as const,
              toolCallId: "c1",
              toolName: "secret",
              result: { status: "ok" as const, content: [{ type: "text" as const, text: "s" }] },
            },
            {
              type: "tool-result" as const,
              toolCallId: "c2",
              toolName: "plain",
              result: { status: "ok" as const, content: [{ type: "text" as const, text: "p" }] },
            },
          ],
        },
      ],
    };
    const items = contextItemsOf(
      state as never,
      () => undefined,
      [],
      (name) => (name === "secret" ? "restricted" : "internal"),
    );
    expect(items.find((item) => item.itemId === "c1")?.classification).toBe("restricted");
    expect(items.find((item) => item.itemId === "c2")).not.toHaveProperty("classification");
  });
});

const CONTACT_PHONE = "+44 20 7946 0958";

const contactsTool = defineTool({
  name: "get_contact",
  description: "Look up a contact.",
  input: z.object({}),
  sideEffect: "none",
  dataClassification: "confidential",
  execute: async () => ({ content: `Ada Lovelace, phone ${CONTACT_PHONE}`, output: { name: "Ada Lovelace", phone: CONTACT_PHONE } }),
});

function mailTool(payloads: readonly string[] | undefined) {
  const sent: string[] = [];
  const tool = defineTool({
    name: "send_mail",
    description: "Send an e-mail.",
    input: z.object({ to: z.string(), body: z.string() }),
    sideEffect: "irreversible",
    access: () => ({ reads: [], writes: ["outbox"] }),
    policy: () => ({ destinations: [{ pointer: "/to", role: "email" }], ...(payloads === undefined ? {} : { payloads }) }),
    async execute({ body }) {
      sent.push(body);
      return "sent";
    },
  });
  return { tool, sent };
}

/** Mail to the user's recipients and reading contacts, under any influence: only the data-flow default stands in the way. */
const mailDocument = (defaults: Record<string, string> = {}) => ({
  version: 1,
  id: "mail",
  defaults,
  rules: [
    {
      id: "mail-the-users-recipients",
      effect: "allow",
      match: {
        tenant: "*",
        principal: { ids: "*", authenticated: "*" },
        scopes: "*",
        tool: { names: ["send_mail"], revisions: "*", owners: "*" },
        verb: "*",
        resource: "*",
        path: "*",
        dataClassification: "*",
        destination: "*",
        baseRevision: "*",
        sideEffect: "*",
        expectedEffect: "*",
        provenance: { roles: ["email"], origins: ["trusted"] },
        influence: ["trusted", "untrusted"],
      },
    },
    {
      id: "read-contacts",
      effect: "allow",
      match: {
        tenant: "*",
        principal: { ids: "*", authenticated: "*" },
        scopes: "*",
        tool: { names: ["get_contact"], revisions: "*", owners: "*" },
        verb: "*",
        resource: "*",
        path: "*",
        dataClassification: ["confidential"],
        destination: "*",
        baseRevision: "*",
        sideEffect: ["none"],
        expectedEffect: "*",
        provenance: "*",
      },
    },
  ],
});

const leakSteps = () => [
  callTools([{ name: "get_contact", args: {} }]),
  callTools([{ name: "send_mail", args: { to: "bob@example.com", body: `Ada's phone: ${CONTACT_PHONE}` } }]),
  say("done"),
];

describe("the runtime computes carries and journals it with the decision", () => {
  it("parks a mail carrying a contact's phone number out of the account, and journals what it carries", async () => {
    const mail = mailTool(["/body"]);
    const { harness, journal } = policyRig(leakSteps(), {
      policy: createPolicyEngine(loadPolicy(mailDocument())),
      tools: [contactsTool, mail.tool],
    });
    const parked = await harness.start("Mail bob@example.com Ada's phone number");
    expect(parked.waiting?.approvals).toHaveLength(1);
    expect(mail.sent).toEqual([]);
    const events = (await readAll(journal, parked.runId)).map(parseYokeEvent);
    const requested = events.find((event) => event.type === "action.approval_requested");
    expect(requested?.data).toMatchObject({
      policy: { effect: "require_approval", ruleId: "data-flow-default" },
      // The phone number is inside a longer text the model wrote: carried, though the text as a whole is unsourced.
      carries: { classification: "confidential", fromToolOutput: true, fromUntrusted: false, outward: true },
    });
  });

  it("runs it when the document turns the default off, with carries on the admission", async () => {
    const mail = mailTool(["/body"]);
    const { harness, journal } = policyRig(leakSteps(), {
      policy: createPolicyEngine(loadPolicy(mailDocument({ dataFlow: "allow" }))),
      tools: [contactsTool, mail.tool],
    });
    const result = await harness.start("Mail bob@example.com Ada's phone number");
    expect(result.outcome?.status).toBe("completed");
    expect(mail.sent).toEqual([`Ada's phone: ${CONTACT_PHONE}`]);
    const events = (await readAll(journal, result.runId)).map(parseYokeEvent);
    const admitted = events.find((event) => event.type === "action.admitted" && event.data.toolName === "send_mail");
    expect(admitted?.data).toMatchObject({ rule: "mail-the-users-recipients", carries: { classification: "confidential", outward: true } });
  });

  it("a tool that declares no payloads journals no carries and is left to the rules", async () => {
    const mail = mailTool(undefined);
    const { harness, journal } = policyRig(leakSteps(), {
      policy: createPolicyEngine(loadPolicy(mailDocument())),
      tools: [contactsTool, mail.tool],
    });
    const result = await harness.start("Mail bob@example.com Ada's phone number");
    expect(result.outcome?.status).toBe("completed");
    const events = (await readAll(journal, result.runId)).map(parseYokeEvent);
    for (const event of events) expect(event.data).not.toHaveProperty("carries");
  });
});
