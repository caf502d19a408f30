import { resolve } from "node:path";
import { YokeError, type YokeEvent } from "@yoke/protocol";
import { createHarness } from "../harness.js";
import { DEFAULT_TENANT_ID } from "../harness-deps.js";
import type { Harness, HarnessOptions, RunResult, StartOptions, WaitingRunResult } from "../harness-types.js";
import type { UserInput } from "../user-input.js";
import { compareRuns, failedCandidateReport, type CandidateFailure, type RolloutReport } from "./compare-runs.js";
import { RecordedOutcomes } from "./recorded-outcomes.js";
import { suppressRegistry, suppressTools, type ReadOnlyTools, type SuppressedCall, type SuppressionContext } from "./suppress-effects.js";

/** How a shadow drives its candidate. */
export interface ShadowOptions {
  /** The candidate's read-only tools (`sideEffect: "none"`): run live (default) or suppressed too. */
  readonly readOnlyTools?: ReadOnlyTools;
}

/** The candidate's run of one primary run: it ran (to an outcome or a wait), or its harness threw. */
export type CandidateRun =
  | { readonly status: "ran"; readonly runId: string; readonly result: RunResult | WaitingRunResult }
  | { readonly status: "failed"; readonly runId: string; readonly failure: CandidateFailure };

/**
 * The primary harness, unchanged, with a candidate release shadowing its new runs. Every
 * method is the primary's; `start` and `stream` also drive the candidate on the same input
 * once the primary's call has returned, without holding it back, under the same run id in the
 * candidate's own journal (or tenant).
 */
export interface ShadowedHarness<Output = unknown> extends Harness<Output> {
  /** The candidate's harness (its tools suppressed): read its runs with `events`, `getState`. */
  readonly candidate: Harness;
  /** The candidate's run of primary run `runId`, once it has stopped. RUN_NOT_FOUND for a run this shadow did not start. */
  candidateRun(runId: string): Promise<CandidateRun>;
  /** Compares primary run `runId` with its candidate run (waiting for it to stop). RUN_NOT_FOUND as `candidateRun`. */
  report(runId: string): Promise<RolloutReport>;
  /** Every call of the candidate that did not run, in the order it was asked for. */
  suppressedCalls(): readonly SuppressedCall[];
}

/**
 * Shadow mode: `candidate` (another policy, prompt, tool revisions or model, as harness
 * options) runs beside `primary` on its live inputs with every side effect suppressed, and
 * journals its decisions in its own journal (or its own tenant of the primary's journal).
 *
 * `start` returns exactly what the primary's `start` returns (and rejects as it rejects; then
 * no candidate runs). After it, the candidate starts the same input under the same run id.
 * Its tools with effects never run their handlers: each is answered with the primary's
 * recorded outcome of the same tool and arguments, or fails as suppressed (`SuppressedCall`).
 * Its own model is called live. A candidate that throws never reaches the primary's caller:
 * the failure is in `candidateRun` and `report`. A candidate that parks a call for approval
 * stays parked (nobody approves a shadow); the report says so.
 *
 * CONFIG_INVALID: a built `Harness` as candidate (its tools could not be suppressed), a
 * candidate on the primary's journal and tenant (checked when both are options; otherwise the
 * candidate's run is refused with CONFIG_INVALID when its store already holds the primary's
 * run), `readOnlyTools` not `run` or `suppress`.
 *
 * @example
 * ```ts
 * const shadowed = shadow(harness, { ...options, policy: stricterPolicy, journal: shadowJournal });
 * const result = await shadowed.start("Summarize notes.txt"); // the primary's result
 * console.log(formatRolloutReport(await shadowed.report(result.runId)));
 * ```
 */
export function shadow<Output>(primary: Harness<Output> | HarnessOptions, candidate: HarnessOptions, options: ShadowOptions = {}): ShadowedHarness<Output> {
  if (isHarness(candidate)) {
    throw new YokeError(
      "CONFIG_INVALID",
      "shadow: the candidate must be harness options, not a built harness: its tools must be wrapped to suppress their effects",
      {
        details: { option: "candidate" },
      },
    );
  }
  const readOnlyTools = options.readOnlyTools ?? "run";
  if (readOnlyTools !== "run" && readOnlyTools !== "suppress") {
    throw new YokeError("CONFIG_INVALID", `shadow: readOnlyTools must be "run" or "suppress", not ${JSON.stringify(readOnlyTools)}`, {
      details: { option: "readOnlyTools" },
    });
  }
  if (!isHarness(primary) && sameStore(primary, candidate)) {
    throw new YokeError("CONFIG_INVALID", "shadow: the candidate must not use the primary's journal and tenant: give it its own journal or its own tenantId", {
      details: { option: "journal" },
    });
  }
  const primaryHarness = (isHarness(primary) ? primary : createHarness(primary)) as Harness<Output>;
  const outcomes = new Map<string, RecordedOutcomes>();
  const suppressed: SuppressedCall[] = [];
  const suppression: SuppressionContext = { readOnlyTools, outcomesOf: (runId) => outcomes.get(runId), record: (call) => suppressed.push(call) };
  const candidateHarness = createHarness(suppressedOptions(candidate, suppression));
  const runs = new Map<string, Promise<CandidateRun>>();

  const drive = async (input: UserInput, startOptions: StartOptions, runId: string): Promise<CandidateRun> => {
    try {
      const recorded = await collect(primaryHarness.events(runId));
      outcomes.set(runId, RecordedOutcomes.of(recorded));
      if (await exists(candidateHarness, runId)) {
        throw new YokeError(
          "CONFIG_INVALID",
          `shadow: the candidate's journal and tenant already hold run ${runId}: the candidate must not share the primary's journal and tenant`,
          {
            details: { option: "journal", runId },
          },
        );
      }
      // The primary's signal cancels the primary; the stream's buffer setting is the stream's.
      const { signal: _signal, maxBufferedDeltas: _buffer, ...candidateStart } = startOptions as StartOptions & { maxBufferedDeltas?: number };
      return { status: "ran", runId, result: await candidateHarness.start(input, { ...candidateStart, runId }) };
    } catch (error) {
      return { status: "failed", runId, failure: failureOf(error) };
    }
  };
  const follow = (input: UserInput, startOptions: StartOptions, runId: string) => {
    runs.set(runId, drive(input, startOptions, runId));
  };
  const candidateRun = (runId: string): Promise<CandidateRun> => {
    const run = runs.get(runId);
    if (run === undefined) throw new YokeError("RUN_NOT_FOUND", `shadow: run ${runId} was not started through this shadow`, { details: { runId } });
    return run;
  };

  return {
    candidate: candidateHarness,
    async start(input, startOptions = {}) {
      const result = await primaryHarness.start(input, startOptions);
      follow(input, startOptions, result.runId);
      return result;
    },
    stream(task, streamOptions = {}) {
      const stream = primaryHarness.stream(task, streamOptions);
      stream.result.then(
        (result) => follow(task, streamOptions, result.runId),
        () => undefined,
      );
      return stream;
    },
    resumeStream: (runId, resumeOptions) => primaryHarness.resumeStream(runId, resumeOptions),
    resume: (runId, resumeOptions) => primaryHarness.resume(runId, resumeOptions),
    startOrResume: (input, startOptions) => primaryHarness.startOrResume(input, startOptions),
    approve: (runId, approvalId, approveOptions) => primaryHarness.approve(runId, approvalId, approveOptions),
    deny: (runId, approvalId, denyOptions) => primaryHarness.deny(runId, approvalId, denyOptions),
    interrupt: (runId, request) => primaryHarness.interrupt(runId, request),
    getState: (runId) => primaryHarness.getState(runId),
    events: (runId) => primaryHarness.events(runId),
    async close() {
      await Promise.all(runs.values());
      await candidateHarness.close();
      await primaryHarness.close();
    },
    candidateRun: async (runId) => candidateRun(runId),
    async report(runId) {
      const run = await candidateRun(runId);
      const primaryEvents = await collect(primaryHarness.events(runId));
      const candidateEvents = await collectIfAny(candidateHarness, runId);
      const report =
        candidateEvents === undefined
          ? failedCandidateReport(primaryEvents, run.status === "failed" ? run.failure : { code: "RUN_NOT_FOUND", message: "the candidate has no run" })
          : { ...compareRuns(primaryEvents, candidateEvents), ...(run.status === "failed" ? { candidateFailure: run.failure } : {}) };
      return { ...report, suppressed: suppressed.filter((call) => call.runId === runId) };
    },
    suppressedCalls: () => [...suppressed],
  };
}

/** The candidate's options with its tools (or registry) suppressed. */
function suppressedOptions(candidate: HarnessOptions, suppression: SuppressionContext): HarnessOptions {
  if (candidate.registry !== undefined) return { ...candidate, registry: suppressRegistry(candidate.registry, suppression) };
  if (candidate.tools !== undefined) return { ...candidate, tools: suppressTools(candidate.tools, suppression) };
  return candidate;
}

function isHarness(value: unknown): value is Harness {
  const maybe = value as Partial<Harness> | undefined;
  return typeof maybe?.start === "function" && typeof maybe.events === "function";
}

/** Both options name one journal (the same object, or the same file) and one tenant. */
function sameStore(primary: HarnessOptions, candidate: HarnessOptions): boolean {
  if ((primary.tenantId ?? DEFAULT_TENANT_ID) !== (candidate.tenantId ?? DEFAULT_TENANT_ID)) return false;
  if (primary.journal === undefined || candidate.journal === undefined) return false;
  if (typeof primary.journal === "string" && typeof candidate.journal === "string") return resolve(primary.journal) === resolve(candidate.journal);
  return primary.journal === candidate.journal;
}

async function exists(harness: Harness, runId: string): Promise<boolean> {
  try {
    await harness.getState(runId);
    return true;
  } catch (error) {
    if (absent(error)) return false;
    throw error;
  }
}

async function collect(events: AsyncIterable<YokeEvent>): Promise<YokeEvent[]> {
  const all: YokeEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

async function collectIfAny(harness: Harness, runId: string): Promise<YokeEvent[] | undefined> {
  try {
    return await collect(harness.events(runId));
  } catch (error) {
    if (absent(error)) return undefined;
    throw error;
  }
}

/** No such run, or (a path journal) no journal yet: either way, nothing of it. */
function absent(error: unknown): boolean {
  return YokeError.hasCode(error, "RUN_NOT_FOUND") || YokeError.hasCode(error, "JOURNAL_NOT_INITIALIZED");
}

function failureOf(error: unknown): CandidateFailure {
  if (YokeError.isInstance(error)) return { code: error.code, message: error.message };
  return { code: "UNKNOWN", message: error instanceof Error ? error.message : String(error) };
}
