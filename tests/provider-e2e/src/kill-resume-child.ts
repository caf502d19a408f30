// A child process for the kill-and-resume test: one agent run over the replay server, on a
// SQLite journal, SIGKILLed right after its Nth model response is durable when asked.
//   node kill-resume-child.ts <provider> <start|resume> <replay url> <dir> [kill after N responses]
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { createSqliteJournal } from "@yoke/journal";
import { createHarness, defineTool } from "@yoke/runtime";
import type { JournalV1 } from "@yoke/protocol";
import { providers } from "./providers.ts";

const [name, mode, url, dir, killAfter] = process.argv.slice(2) as [string, string, string, string, string | undefined];
const provider = providers.find((entry) => entry.name === name);
if (provider === undefined) {
  process.stderr.write(`unknown provider ${name}; one of ${providers.map((entry) => entry.name).join(", ")}\n`);
  process.exit(2);
}
const workspace = join(dir, "workspace");
mkdirSync(join(workspace, "notes"), { recursive: true });
if (mode === "start") writeFileSync(join(workspace, "notes", "todo.txt"), "ship the journal\nwrite the tests\n");

const store = await createSqliteJournal({ filename: join(dir, "journal.sqlite") });
let responses = 0;
const journal = new Proxy(store, {
  get(target, key) {
    if (key === "append") {
      return async (...args: Parameters<JournalV1["append"]>) => {
        const result = await target.append(...args);
        responses += args[2].filter((draft) => draft.type === "model.responded").length;
        if (killAfter !== undefined && responses >= Number(killAfter)) process.kill(process.pid, "SIGKILL");
        return result;
      };
    }
    const value = Reflect.get(target, key, target) as unknown;
    return typeof value === "function" ? value.bind(target) : value;
  },
}) as JournalV1;

const tools = [
  defineTool({
    name: "read_file",
    description: "Read a workspace file.",
    input: z.object({ path: z.string() }),
    sideEffect: "none",
    execute: async ({ path }) => readFileSync(join(workspace, path), "utf8"),
  }),
  defineTool({
    name: "write_file",
    description: "Write a workspace file.",
    input: z.object({ path: z.string(), content: z.string() }),
    sideEffect: "idempotent",
    execute: async ({ path, content }) => {
      writeFileSync(join(workspace, path), content);
      return `wrote ${path}`;
    },
  }),
  defineTool({
    name: "list_files",
    description: "List the workspace's top-level files.",
    input: z.object({}),
    sideEffect: "none",
    execute: async () => readdirSync(workspace).sort().join("\n"),
  }),
];

const harness = createHarness({
  journal,
  provider: provider.createProvider(url),
  tools,
  tenantId: "tenant_e2e",
  systemPrompt: "Use the tools.",
  maxTurns: 6,
});
const result = mode === "start" ? await harness.start("Summarize notes/todo.txt into summary.md.", { runId: "run_e2e" }) : await harness.resume("run_e2e");
await store.close();
process.stdout.write(`${JSON.stringify({ outcome: result.outcome?.status, turns: result.state.turns })}\n`);
