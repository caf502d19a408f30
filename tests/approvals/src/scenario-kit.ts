// What every scenario process of this suite shares: the stdio line protocol the test drives it
// with, and a scripted model that answers only what the journal does not hold yet.
import { createInterface } from "node:readline";
import type { JournalV1, ModelRequest, ProviderAdapterV1, RunScope } from "@yoke/protocol";
import { createScriptedModel } from "@yoke/testkit";

type Script = Parameters<typeof createScriptedModel>[0];

/** `heard(line)` resolves once the test wrote `line` to stdin (before or after the call); `emit` writes one line to stdout; `close` lets the process end. */
export function stdioLines(): { heard: (line: string) => Promise<void>; emit: (line: string) => void; close: () => void } {
  const lines = createInterface({ input: process.stdin });
  const waiting = new Map<string, () => void>();
  const early = new Set<string>();
  lines.on("line", (line) => {
    const resolveLine = waiting.get(line);
    if (resolveLine === undefined) early.add(line);
    else {
      waiting.delete(line);
      resolveLine();
    }
  });
  return {
    heard: (line) => (early.delete(line) ? Promise.resolve() : new Promise<void>((resolveLine) => waiting.set(line, resolveLine))),
    emit: (line) => process.stdout.write(`${line}\n`),
    close: () => lines.close(),
  };
}

/**
 * The script's answers the journal does not hold yet (nothing is asked twice), as a model that
 * emits `MODEL_CALL` on every call; `lastAt` is the journal's last event time (`start` when empty).
 */
export async function modelAfterJournal(
  store: JournalV1,
  scope: RunScope,
  script: Script,
  start: number,
  emit: (line: string) => void,
): Promise<{ model: ProviderAdapterV1; lastAt: number }> {
  let answered = 0;
  let lastAt = start;
  for await (const event of store.read(scope)) {
    if (event.type === "model.responded") answered += 1;
    lastAt = event.at;
  }
  const scripted = createScriptedModel(script.slice(answered));
  const model: ProviderAdapterV1 = {
    specificationVersion: "v1",
    provider: scripted.provider,
    modelId: scripted.modelId,
    capabilities: scripted.capabilities,
    generate(request: ModelRequest, options) {
      emit("MODEL_CALL");
      return scripted.generate(request, options);
    },
  };
  return { model, lastAt };
}
