// One process of the session crash tests: sends a three-message session over a SQLite journal
// in `--dir`, each message a run of session `session_chat`, and prints one REPORT line at the
// end. It is its own recovery: for each message, a run that exists is resumed, one that does
// not is started, so a process killed anywhere is finished by running this again. The journal
// is wrapped by the testkit's crash injection (YOKE_CRASH_PLAN=<append>:<point> kills the
// process with SIGKILL there).
//
//   node src/session-scenario.ts --dir D
//
// The model answers from what it is shown: the first message makes it call `note`; every
// final answer names how many messages it saw and the first message's text, so a run whose
// context lost (or doubled) an earlier exchange ends in another final state.
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { createSqliteJournal } from "@yoke/journal";
import { steppingClock, ulidIdSource, type ModelRequest, type ProviderAdapterV1 } from "@yoke/protocol";
import { createHarness, defineTool } from "@yoke/runtime";
import { callTools, createScriptedModel, say } from "@yoke/testkit";
import { crashInjection, seededRandom } from "@yoke/testkit/crash";
import { z } from "zod";

export const TENANT = "tenant_sessions";
export const SESSION = "session_chat";
export const MESSAGES = ["Remember the number 7.", "What number did I give you?", "Double it."] as const;

const { values } = parseArgs({ options: { dir: { type: "string" } } });
const dir = resolve(values.dir!);
mkdirSync(dir, { recursive: true });
const journal = crashInjection(await createSqliteJournal({ filename: join(dir, "journal.sqlite") }));

function text(request: ModelRequest, index: number): string {
  const message = request.messages.filter((entry) => entry.role !== "system")[index];
  return message?.role === "user" ? message.content.map((part) => (part.type === "text" ? part.text : "")).join("") : "";
}

/** A model that answers from what it is shown (one scripted step per call). */
function modelFromRequest(): ProviderAdapterV1 {
  const shape = createScriptedModel([]);
  return {
    specificationVersion: "v1",
    provider: shape.provider,
    modelId: shape.modelId,
    capabilities: shape.capabilities,
    generate(request, options) {
      const shown = request.messages.filter((entry) => entry.role !== "system");
      const last = shown.at(-1)!;
      const step =
        last.role === "user" && text(request, shown.length - 1) === MESSAGES[0]
          ? callTools([{ name: "note", args: { text: "7" } }])
          : say(`saw ${shown.length} messages; first: ${text(request, 0)}`);
      return createScriptedModel([step]).generate(request, options);
    },
  };
}

const note = defineTool({
  name: "note",
  description: "Notes a value.",
  input: z.object({ text: z.string() }),
  sideEffect: "idempotent",
  execute: async ({ text: value }) => `noted ${value}`,
});

const clock = steppingClock(Date.UTC(2026, 0, 1) + process.pid * 1_000, 1);
const harness = createHarness({
  journal,
  provider: modelFromRequest(),
  tools: [note],
  tenantId: TENANT,
  clock,
  ids: ulidIdSource({ clock, random: seededRandom(process.pid) }),
});

const outcomes: string[] = [];
for (const [index, message] of MESSAGES.entries()) {
  const runId = `run_message_${index + 1}`;
  const exists = (await journal.head({ tenantId: TENANT, runId })) !== null;
  const result = exists ? await harness.resume(runId) : await harness.start(message, { sessionId: SESSION, runId });
  outcomes.push(result.outcome?.status ?? "waiting");
}
await harness.close();
await journal.close();
process.stdout.write(`REPORT ${JSON.stringify({ outcomes, appends: journal.appends })}\n`);
