// The inside of a crash-scenario process: the stdio line protocol its test drives it with, a
// scripted model that continues after the answers the journal already holds, and the run's
// end reported as one line. The test side is `ScriptProcess` (scenario-process.ts).
import { createInterface } from "node:readline";
import { type JournalV1, type ModelRequest, type ModelResponse, type ProviderAdapterV1, type RunScope, YokeError } from "@yoke/protocol";
import { createScriptedModel } from "./scripted-model.js";
import type { ScriptedStep } from "./scripted-model-steps.js";

/** A scenario process's side of the line protocol. */
export interface ScenarioStdio {
  /** Resolves once the test wrote `line` to stdin, before or after the call; each line written answers one call. */
  heard(line: string): Promise<void>;
  /** Writes one line to stdout. */
  emit(line: string): void;
  /** Stops reading stdin, so the process may end. */
  close(): void;
}

/**
 * Reads stdin line by line for `heard`, writes lines with `emit`.
 *
 * @example
 * ```ts
 * const io = scenarioStdio();
 * io.emit("TOOL_STARTED");
 * await io.heard("finish");
 * ```
 */
export function scenarioStdio(): ScenarioStdio {
  const lines = createInterface({ input: process.stdin });
  const waiting = new Map<string, () => void>();
  const early: string[] = [];
  lines.on("line", (line) => {
    const resolveLine = waiting.get(line);
    if (resolveLine === undefined) early.push(line);
    else {
      waiting.delete(line);
      resolveLine();
    }
  });
  return {
    heard: (line) => {
      const index = early.indexOf(line);
      if (index >= 0) {
        early.splice(index, 1);
        return Promise.resolve();
      }
      return new Promise<void>((resolveLine) => waiting.set(line, resolveLine));
    },
    emit: (line) => process.stdout.write(`${line}\n`),
    close: () => lines.close(),
  };
}

/** How `modelAfterJournal` answers. */
export interface ModelAfterJournalOptions {
  /** The time to continue from when the journal holds no event of the run. */
  readonly start: number;
  /** Told of every call before it is answered (a scenario prints `MODEL_CALL`, say). */
  readonly onCall?: (request: ModelRequest) => void;
  /** Answers a call instead of the script when it returns a promise (a call held until cancelled, say). */
  readonly answer?: (request: ModelRequest, options: Parameters<ProviderAdapterV1["generate"]>[1]) => Promise<ModelResponse> | undefined;
}

/**
 * A scripted model that continues after the journal's answers: the steps of `script` the run's
 * `model.responded` events do not hold yet, so a resumed process asks nothing twice; and
 * `lastAt`, the time of the run's last event (`options.start` when it has none), to start a
 * clock after.
 *
 * @example
 * ```ts
 * const { model, lastAt } = await modelAfterJournal(journal, scope, [callTools([...]), say("Done.")], { start: 0, onCall: () => io.emit("MODEL_CALL") });
 * const clock = steppingClock(lastAt + 1, 1);
 * ```
 */
export async function modelAfterJournal(
  journal: JournalV1,
  scope: RunScope,
  script: readonly ScriptedStep[],
  options: ModelAfterJournalOptions,
): Promise<{ model: ProviderAdapterV1; lastAt: number }> {
  let answered = 0;
  let lastAt = options.start;
  for await (const event of journal.read(scope)) {
    if (event.type === "model.responded") answered += 1;
    lastAt = event.at;
  }
  const scripted = createScriptedModel(script.slice(answered));
  const model: ProviderAdapterV1 = {
    specificationVersion: "v1",
    provider: scripted.provider,
    modelId: scripted.modelId,
    capabilities: scripted.capabilities,
    generate(request, generateOptions) {
      options.onCall?.(request);
      return options.answer?.(request, generateOptions) ?? scripted.generate(request, generateOptions);
    },
  };
  return { model, lastAt };
}

/**
 * The run of a scenario process: prints `READY`, waits for `go`, then `act`s; a YokeError it
 * throws is printed as `FAILED <code> <message>` (any other error is thrown). `close` runs
 * last, whatever happened, then stdin is closed.
 *
 * @example
 * ```ts
 * await runScenario(io, async () => io.emit(`DONE ${JSON.stringify(await harness.start(task))}`), () => journal.close());
 * ```
 */
export async function runScenario(io: ScenarioStdio, act: () => Promise<void>, close: () => Promise<void>): Promise<void> {
  io.emit("READY");
  await io.heard("go");
  try {
    await act();
  } catch (error) {
    if (!YokeError.isInstance(error)) throw error;
    io.emit(`FAILED ${error.code} ${error.message.replace(/\n/g, " ")}`);
  } finally {
    await close();
    io.close();
  }
}

/** A seeded pseudo-random source (Park–Miller), for the run ids of a scenario process: the pid makes them differ between processes. */
export function seededRandom(seed: number): () => number {
  let state = seed % 2147483647 || 1;
  return () => (state = (state * 48271) % 2147483647) / 2147483647;
}
