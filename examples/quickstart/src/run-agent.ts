// Runs the quick-start task with any provider (examples/openai-agent and anthropic-agent use it):
// the quick-start's workspace tools and completion check, a SQLite journal, and the journal's
// timeline printed as it grows.
import { mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { createSqliteJournal } from "@yoke/journal";
import type { JournalEvent, ProviderAdapterV1 } from "@yoke/protocol";
import { createHarness } from "@yoke/runtime";
import { checkSummary, seedWorkspace, workspaceTools } from "./workspace-tools.ts";

const TASK = [
  "Read notes/todo.txt. Write summary.md containing the line '# Summary', an empty line, then one",
  "'- <item>' line per todo item in file order, ending with a newline. Then call run_check and",
  "say you are done only when it prints PASS.",
].join(" ");

export async function runAgent(provider: ProviderAdapterV1, dirOption: string): Promise<string> {
  const dir = resolve(dirOption);
  const workspace = join(dir, "workspace");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(workspace, { recursive: true });
  seedWorkspace(workspace);
  const journal = await createSqliteJournal({ filename: join(dir, "journal.sqlite") });
  const harness = createHarness({
    journal,
    provider,
    tools: workspaceTools(workspace),
    tenantId: "tenant_demo",
    systemPrompt: "You are a careful assistant. Use the tools to read and change files.",
    maxTurns: 10,
    checkCompletion: async () => checkSummary(workspace),
    onEvent: (event) => console.log(describe(event)),
  });
  console.log(`${provider.provider} ${provider.modelId}: run in ${workspace}\n`);
  const result = await harness.start(TASK);
  const verification = await journal.verify({ tenantId: "tenant_demo", runId: result.runId });
  await journal.close();
  // A run either ends with an outcome or waits for a person (a refusal, an escalation): `result.waiting` says which.
  const status = result.waiting ? `waiting for a person (${result.waiting.kind})` : result.outcome.status;
  console.log(`\noutcome: ${status} after ${result.state.turns} turns`);
  console.log(`journal verify: ${verification.ok ? `ok (${verification.events} events)` : "FAILED"} — ${join(dir, "journal.sqlite")}`);
  return result.waiting ? "waiting" : result.outcome.status;
}

/** One line per journal event: what the model said or called, and what each tool returned. */
function describe(event: JournalEvent): string {
  const data = event.data as {
    response?: { stopReason: string; content: { type: string; text?: string; toolName?: string; rawArguments?: string }[] };
    toolName?: string;
    result?: { status: string; content: { text: string }[] };
  };
  const clip = (text: string) => (text.length > 70 ? `${text.slice(0, 69)}…` : text).replace(/\s+/g, " ");
  let detail = "";
  if (data.response) {
    detail = `${data.response.stopReason}: ${data.response.content.map((part) => (part.type === "tool-call" ? `${part.toolName}(${clip(part.rawArguments ?? "")})` : part.type === "text" ? JSON.stringify(clip(part.text ?? "")) : `[${part.type}]`)).join(", ")}`;
  } else if (data.toolName && data.result) {
    detail = `${data.toolName} ${data.result.status}: ${JSON.stringify(clip(data.result.content.map((part) => part.text).join(" ")))}`;
  }
  return `  #${String(event.seq).padStart(2)}  ${event.type.padEnd(18)} ${detail}`;
}
