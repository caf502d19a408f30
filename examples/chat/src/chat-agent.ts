// The chat's agent: two tools, and a policy that asks the person before any email leaves.
import { createHash } from "node:crypto";
import type { JournalV1, PolicyEngineV1, ProviderAdapterV1 } from "@yoke/protocol";
import { createHarness, defineTool, type Harness } from "@yoke/runtime";
import { callTools, say, type ScriptedStep } from "@yoke/testkit";
import { z } from "zod";

export const lookupWeather = defineTool({
  name: "lookup_weather",
  description: "Today's weather in a city.",
  input: z.object({ city: z.string() }),
  sideEffect: "none",
  execute: async ({ city }) => `sunny and 21°C in ${city}`,
});

export const sendEmail = defineTool({
  name: "send_email",
  description: "Send an email.",
  input: z.object({ to: z.string(), body: z.string() }),
  sideEffect: "irreversible",
  execute: async ({ to }) => `sent to ${to}`,
});

// A policy revision is a digest (journaled with every decision): here, of the rule's text.
const RULE = "send_email requires approval; everything else is allowed";
const REVISION = createHash("sha256").update(RULE).digest("hex");

/** Every email waits for the person in the chat; everything else is allowed. */
export const emailsNeedApproval: PolicyEngineV1 = {
  specificationVersion: "v1",
  revision: REVISION,
  decide: (tuple) =>
    tuple.tool.name === "send_email"
      ? { effect: "require_approval", ruleId: "emails-need-a-person", policyRevision: REVISION, reason: "an email leaves only when you approve it" }
      : { effect: "allow", ruleId: "reads-are-fine", policyRevision: REVISION, reason: "no side effect" },
};

/** What the demo's scripted model answers, without an API key. */
export const DEMO_SCRIPT: readonly ScriptedStep[] = [
  callTools([{ name: "lookup_weather", args: { city: "Paris" }, id: "call_weather" }], "Let me check the weather in Paris first."),
  callTools([{ name: "send_email", args: { to: "ana@example.com", body: "It is sunny and 21°C in Paris." }, id: "call_email" }], "Now I will email Ana."),
  say("Done: I emailed Ana that it is sunny and 21°C in Paris."),
];

export function createChatHarness(options: { journal: JournalV1 | string; provider: ProviderAdapterV1 }): Harness {
  return createHarness({ ...options, tools: [lookupWeather, sendEmail], policy: emailsNeedApproval, tenantId: "tenant_chat" });
}
