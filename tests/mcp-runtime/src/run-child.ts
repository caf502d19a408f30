// A child process for the kill-and-resume tests: one run over the drift server (stdio) and a
// SQLite journal, SIGKILLed right after the first append holding an event of a given type is
// durable, when asked. Prints one JSON line: the outcome, or the typed error that stopped it.
//   node run-child.ts <start|resume> <dir> <steps JSON> [kill after event type]
// Steps: [{ "call": [[toolName, args], …] } | { "say": text }, …] — the scripted model's answers.
import { join } from "node:path";
import { createSqliteJournal } from "@yoke/journal";
import { YokeError, type JournalV1, type JsonValue } from "@yoke/protocol";
import { createHarness } from "@yoke/runtime";
import { callTools, createScriptedModel, say } from "@yoke/testkit";
import { driftRegistry } from "./drift-rig.ts";

const [mode, dir, stepsJson, killAfter] = process.argv.slice(2) as [string, string, string, string | undefined];
const RUN = "run_01J0MCPKILLRESUME0000000000";

const store = await createSqliteJournal({ filename: join(dir, "journal.sqlite") });
const journal = new Proxy(store, {
  get(target, key) {
    if (key === "append") {
      return async (...args: Parameters<JournalV1["append"]>) => {
        const result = await target.append(...args);
        if (killAfter !== undefined && args[2].some((draft) => draft.type === killAfter)) process.kill(process.pid, "SIGKILL");
        return result;
      };
    }
    const value = Reflect.get(target, key, target) as unknown;
    return typeof value === "function" ? value.bind(target) : value;
  },
}) as JournalV1;

type Step = { call: [string, JsonValue][] } | { say: string };
const steps = (JSON.parse(stepsJson) as Step[]).map((step) => ("say" in step ? say(step.say) : callTools(step.call.map(([name, args]) => ({ name, args })))));
const registry = await driftRegistry(join(dir, "state.json"));
const harness = createHarness({ journal, provider: createScriptedModel(steps), registry, tenantId: "tenant_mcp" });
try {
  const result = mode === "start" ? await harness.start("Look words up.", { runId: RUN }) : await harness.resume(RUN);
  process.stdout.write(`${JSON.stringify({ outcome: result.outcome?.status })}\n`);
} catch (error) {
  process.stdout.write(`${JSON.stringify({ error: YokeError.isInstance(error) ? error.code : String(error) })}\n`);
} finally {
  await registry.close();
  await store.close();
}
