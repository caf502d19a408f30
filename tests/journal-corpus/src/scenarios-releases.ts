// Scenarios of what a run carries across calls and processes, which the first corpus never
// reached: a session's second run (continues, session.appended), a delegation pinned at start
// (run.delegated), settings changed on resume (settings.changed), a registry tool whose
// listing changed mid-run and a declared rule re-admitting it (tool.drifted, tool.readmitted),
// and @yoke/testkit's reference scenario of action transactions.
import { tmpdir } from "node:os";
import { join } from "node:path";
import { canonicalJson } from "@yoke/protocol";
import { defineTool } from "@yoke/runtime";
import { callTools, createEffectLedger, createStaticToolSource, referenceScenario, refuse, say } from "@yoke/testkit";
import { createToolRegistry } from "@yoke/tool-registry";
import { RUN } from "./corpus-kit.js";
import type { Scenario, ScenarioEnv } from "./scenario.js";
import { scratchDirectory } from "./scratch.js";
import { echoTool, noted, startWith } from "./scenario-tools.js";

const SESSION = "session_corpus";
/** The reference scenario's task (its ledger is never written: only the task is read). */
const REFERENCE_TASK = referenceScenario(createEffectLedger(join(tmpdir(), "yoke-corpus-task-only.jsonl"))).task;
const LOOKUP = {
  name: "lookup",
  description: "Look a word up.",
  inputSchema: { type: "object", properties: { word: { type: "string" } }, required: ["word"] },
};

/**
 * A registry of the echo tool and a remote source listing `lookup`, which a description-only
 * change may re-admit. The first harness's registry is ready before the drive starts (`shared.registryReady`).
 */
function driftingRegistry(env: ScenarioEnv) {
  const source = createStaticToolSource({ tools: [LOOKUP], handler: (_name, input) => `defined: ${canonicalJson(input)}` });
  const registry = createToolRegistry({ tools: [echoTool], readmission: [{ id: "descriptions-ok", changes: ["description"], origin: { kind: "mcp-http" } }] });
  const ready = registry.addSource(source, { trustDomain: "third-party", tools: { lookup: { sideEffect: "none" } } });
  env.shared.registryReady ??= ready;
  return { source, registry };
}

/** The reference scenario over a fresh effect ledger per harness (each harness sees the world from scratch). */
function referenceWorld() {
  return referenceScenario(createEffectLedger(join(scratchDirectory("ledger"), "ledger.jsonl")));
}

export const RELEASE_SCENARIOS: readonly Scenario[] = [
  {
    name: "session-continued",
    about: "a session's second run continues the first: run.started.continues pins the first run, each run is appended to the session stream",
    world: () => ({ script: { queues: [[say("notes.txt lists three todo items"), say("Three todo items.")]] }, options: { tools: [echoTool] } }),
    drive: async (context) => {
      const lines: string[] = [];
      await noted(lines, context, () => context.harness.start("What is in notes.txt?", { runId: RUN, sessionId: SESSION }));
      await noted(lines, context, () => context.harness.start("Summarize it in one line.", { runId: `${RUN}_next`, sessionId: SESSION }));
      return lines;
    },
    sqlite: true,
  },
  {
    name: "delegated-run",
    about: "a run started with a delegation pins it (run.delegated) in its first transaction; the echo the grant covers runs",
    world: () => ({
      script: { queues: [[callTools([{ name: "echo", args: { text: "within the grant" } }]), say("done")]] },
      options: { tools: [echoTool] },
    }),
    drive: async (context) => [
      await context.outcomeOf(() =>
        context.harness.start("Echo once.", { runId: RUN, delegation: { grants: [{ grantId: "echo-once", tools: ["echo"], max: 1 }] } }),
      ),
    ],
  },
  {
    name: "settings-changed",
    about: "a refusal waits; a person resumes it with new settings and an input: settings.changed, then the next request carries them",
    world: () => ({ script: { queues: [[refuse("I need a lower temperature for this."), say("done, carefully")]] }, options: { tools: [echoTool] } }),
    drive: async (context) => {
      const lines: string[] = [];
      await noted(lines, context, () => context.harness.start("Answer carefully.", { runId: RUN, settings: { temperature: 0.7 } }));
      await noted(lines, context, () =>
        context.harness.resume(RUN, { settings: { temperature: 0.2, maxOutputTokens: 512 }, input: "Go on, with temperature 0.2." }),
      );
      return lines;
    },
    sqlite: true,
  },
  {
    name: "tool-drift-readmitted",
    about: "a registry tool's description changes after the run pinned it: tool.drifted, a declared rule re-admits it (tool.readmitted) and the call runs",
    world: (env) => {
      const { source, registry } = driftingRegistry(env);
      return {
        script: {
          queues: [
            [
              () => {
                source.setTools([{ ...LOOKUP, description: "Look a word up in the big dictionary." }]);
                return callTools([{ name: "lookup", args: { word: "yoke" } }]);
              },
              say("a yoke joins two oxen"),
            ],
          ],
        },
        options: { registry },
      };
    },
    drive: async (context) => {
      await context.env.shared.registryReady;
      return [await context.outcomeOf(() => context.harness.start("Look up yoke.", { runId: RUN }))];
    },
  },
  {
    name: "reference-scenario",
    about: "@yoke/testkit's reference scenario: five calls in one batch, the flight fails, the hotel and car are compensated, the charge stands",
    world: () => {
      const scenario = referenceWorld();
      return { script: { queues: [scenario.steps()] }, options: { tools: scenario.tools.map((tool) => defineTool(tool)) } };
    },
    drive: startWith(REFERENCE_TASK),
    sqlite: true,
  },
];
