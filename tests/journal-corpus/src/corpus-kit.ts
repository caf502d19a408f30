// The instruments every corpus scenario runs under: a journal that notes each commit (which
// stream, which seqs, how many scripted answers the model had given by then), a provider that
// answers from one or more scripted queues and keeps the canonical JSON of every request it was
// sent, a clock a scenario moves by hand, and the harness built from them with sequential ids.
import type { HarnessOptions } from "@yoke/runtime";
import { createHarness, type Harness } from "@yoke/runtime";
import { canonicalJson, sequentialIdSource, type Clock, type GenerateOptions, type JournalV1, type ModelRequest, type ProviderAdapterV1 } from "@yoke/protocol";
import { createScriptedModel, type ScriptedStep } from "@yoke/testkit";

export const TENANT = "tenant_corpus";
export const RUN = "run_corpus";
export const START_AT = 1_000;

/** One commit: `count` events appended to stream `runId` after seq `after`, with the answers each queue had given by then. */
export interface Commit {
  readonly runId: string;
  readonly after: number;
  readonly count: number;
  readonly consumed: readonly number[];
}

/** A provider answering from scripted queues: `route` picks the queue a request goes to (default: the first). */
export interface ScriptedQueues {
  readonly queues: readonly (readonly ScriptedStep[])[];
  readonly route?: (request: ModelRequest) => number;
}

export interface RecordingProvider extends ProviderAdapterV1 {
  /** Every request received, as canonical JSON, in order. */
  readonly requests: string[];
  /** Answers each queue has given (or calls it failed), in the order of `queues`. */
  consumed(): number[];
}

/** The provider of `script` whose queue `i` starts past its first `skip[i]` steps: a model continued from a journal prefix. */
export function recordingProvider(script: ScriptedQueues, skip: readonly number[] = []): RecordingProvider {
  const models = script.queues.map((steps, index) => createScriptedModel(steps.slice(skip[index] ?? 0)));
  const counts = script.queues.map((_, index) => skip[index] ?? 0);
  const requests: string[] = [];
  const first = models[0]!;
  return {
    specificationVersion: "v1",
    provider: first.provider,
    modelId: first.modelId,
    capabilities: first.capabilities,
    requests,
    consumed: () => [...counts],
    async generate(request: ModelRequest, options?: GenerateOptions) {
      const queue = script.route?.(request) ?? 0;
      if (!options?.signal?.aborted) {
        requests.push(canonicalJson(request));
        counts[queue] = (counts[queue] ?? 0) + 1;
      }
      return models[queue]!.generate(request, options);
    },
  };
}

/** `inner`, noting each successful append as a `Commit`. */
export function committingJournal(inner: JournalV1, provider: () => RecordingProvider | undefined): JournalV1 & { readonly commits: Commit[] } {
  const commits: Commit[] = [];
  return {
    specificationVersion: inner.specificationVersion,
    capabilities: inner.capabilities,
    ...(inner.leases === undefined ? {} : { leases: inner.leases }),
    commits,
    async append(scope, expectedSeq, drafts, options) {
      const result = await inner.append(scope, expectedSeq, drafts, options);
      commits.push({ runId: scope.runId, after: expectedSeq, count: drafts.length, consumed: provider()?.consumed() ?? [] });
      return result;
    },
    read: (scope, options) => inner.read(scope, options),
    head: (scope) => inner.head(scope),
    verify: (scope) => inner.verify(scope),
    listRuns: (tenantId) => inner.listRuns(tenantId),
    close: () => inner.close(),
  };
}

/** A clock that stands still until a scenario moves it. */
export function stillClock(start = START_AT): Clock & { set(now: number): void } {
  let now = start;
  return { specificationVersion: "v1", now: () => now, set: (next) => void (now = next) };
}

export const instantSleep = async () => undefined;

/** A harness over `journal` and `provider`, deterministic: still clock, sequential ids from `idStart`, no real sleep. */
export function corpusHarness(
  journal: JournalV1,
  provider: ProviderAdapterV1,
  clock: Clock,
  idStart: number,
  options: Omit<Partial<HarnessOptions>, "journal" | "provider" | "clock" | "ids">,
): Harness {
  return createHarness({
    tenantId: TENANT,
    sleep: instantSleep,
    ...options,
    journal,
    provider,
    clock,
    ids: sequentialIdSource(idStart),
  }) as Harness;
}
