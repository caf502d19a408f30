import {
  RunStateAccumulator,
  YokeError,
  newId,
  parseId,
  readYokeEvents,
  type EventData,
  type RunScope,
  type SchemaLike,
  type YokeEvent,
  type YokeEventDraft,
} from "@yoke/protocol";
import { createCompiledContext, noteJournaledArtifacts } from "./compiled-context.js";
import { resolveOptions, resolvePrincipal } from "./harness-deps.js";
import { openPathJournal } from "./journal-path.js";
import type {
  ApproveOptions,
  DenyOptions,
  Harness,
  HarnessOptions,
  OutputOf,
  ResumeOptions,
  RunResult,
  StartOptions,
  StartOrResumeOptions,
  WaitingRunResult,
} from "./harness-types.js";
import { approveRun, denyRun } from "./approval-desk.js";
import type { HeldLease } from "./run-lease.js";
import { addNextTurn } from "./loop/next-turn.js";
import { runLoop } from "./loop/run-loop.js";
import type { HarnessDeps } from "./run-context.js";
import { Turn } from "./turn/turn.js";
import { snapshotRecord } from "./pinned-tools.js";
import { abortLive, appendInterrupt, interruptOf } from "./interrupts.js";
import { createRunFacts } from "./loop/run-facts.js";
import { signatureRules } from "./loop-detection.js";
import { answerWaiting } from "./loop/answer-waiting.js";
import type { InterruptRequestOptions, WaitingAnswerOptions } from "./loop-control.js";
import { RunBudget } from "./budget/run-budget.js";
import { withSubagents } from "./subagents/child-runs.js";
import type { ChildLink } from "./subagents/spawn-tool.js";
import { forkArtifacts } from "./subagents/fork-source.js";
import { load, newContext, notFound, owned } from "./open-run.js";
import { checkedSettings, checkedSettingsChange } from "./run-settings.js";
import { changeSettings } from "./loop/resume-settings.js";
import { checkPinnedDelegation, delegatedDraft, delegationForStart } from "./delegation-start.js";
import { streamResume, streamStart } from "./stream/run-stream.js";
import { userInputOf, type NormalizedInput, type UserInput } from "./user-input.js";
import { laterInputDrafts, openSession, type SessionOpening } from "./sessions/session-start.js";
import { storedInput, type StoredInput } from "./input-media.js";
import { loadHistory } from "./sessions/session-history.js";
import { rememberHarnessOptions } from "./replay/harness-options-registry.js";
import { checkRelease } from "./release/check-release.js";
import { runningRelease } from "./release/running-release.js";

/**
 * Creates a harness: the loop that asks the model, validates and runs its tool calls, and
 * journals every step before acting on it. A tool turn costs two durable appends: the
 * response with every call's `action.admitted`/`tool.rejected`, then every outcome
 * (`action.committed`, `action.failed`, …) with the next turn's `turn.started`,
 * `context.compiled` (the compiler's manifest delta) and `model.requested`. Requests are compiled by `@yoke/context-compiler`.
 *
 * @example
 * ```ts
 * const harness = createHarness({
 *   journal: createMemoryJournal(),
 *   provider: createScriptedModel([callTools([{ name: "echo", args: { text: "hi" } }]), say("done")]),
 *   tools: [echo],
 *   tenantId: "tenant_a",
 * });
 * const { outcome } = await harness.start("Say hi through the echo tool.");
 * outcome?.status; // "completed": no checkCompletion, so the answer is unverified (undefined while the run waits for a person)
 *
 * // Structured output: `result.output` is typed from the schema.
 * const typed = createHarness({ provider, output: z.object({ answer: z.number() }) });
 * const { output } = await typed.start("What is 2 + 3? Answer as { answer }.");
 * output?.answer; // 5
 * ```
 */
export function createHarness<OutputSchema extends SchemaLike | undefined = undefined>(options: HarnessOptions<OutputSchema>): Harness<OutputOf<OutputSchema>> {
  const harness = createAdjustedHarness(options as HarnessOptions<SchemaLike | undefined>, (deps) => deps);
  rememberHarnessOptions(harness, options as HarnessOptions<SchemaLike | undefined>);
  return harness as unknown as Harness<OutputOf<OutputSchema>>;
}

/**
 * A harness whose resolved dependencies (its own and every subagent's) pass through `adjust`
 * first: how replay swaps the executor and verifiers without a public option for it.
 */
export function createAdjustedHarness(options: HarnessOptions<SchemaLike | undefined>, adjust: (deps: HarnessDeps) => HarnessDeps): Harness {
  const deps = withSubagents(options, (childOptions) => adjust(resolveOptions(childOptions)), startRun, resumeRun, owned);
  const ownsJournal = typeof options.journal === "string";
  const openJournalPath = (createIfMissing: boolean, operation: string) => openPathJournal(deps.journal, options.journal, createIfMissing, operation);

  const harness: Harness = {
    async start(input: UserInput, startOptions: StartOptions = {}): Promise<RunResult | WaitingRunResult> {
      const task = userInputOf(input, "start");
      throwIfAborted(startOptions.signal);
      const runId = startOptions.runId === undefined ? newId(deps.ids, "run") : parseId("run", startOptions.runId);
      const scope = { tenantId: deps.tenantId, runId };
      await openJournalPath(true, "start");
      return owned(deps, scope, { signal: startOptions.signal }, async (lease) => {
        if ((await deps.journal.head(scope)) !== null) {
          throw new YokeError("RUN_ALREADY_EXISTS", `run ${runId} already exists; resume it instead`, { details: { ...scope } });
        }
        return startRun(deps, scope, task, startOptions, lease);
      });
    },

    async resume(runId: string, resumeOptions: ResumeOptions = {}): Promise<RunResult | WaitingRunResult> {
      const scope = { tenantId: deps.tenantId, runId };
      await openJournalPath(false, "resume");
      return owned(deps, scope, { signal: resumeOptions.signal, wait: resumeOptions.waitForLease }, (lease) =>
        resumeRun(deps, scope, resumeOptions.signal, lease, resumeOptions, resumeOptions.delegation, resumeOptions.settings),
      );
    },

    async startOrResume(input: UserInput, options: StartOrResumeOptions): Promise<RunResult | WaitingRunResult> {
      const task = userInputOf(input, "startOrResume");
      throwIfAborted(options?.signal);
      if (options?.runId === undefined) throw new YokeError("CONFIG_INVALID", "startOrResume: options.runId is required");
      if (options.createJournal !== undefined && typeof options.createJournal !== "boolean") {
        throw new YokeError("CONFIG_INVALID", "startOrResume: createJournal must be a boolean", { details: { option: "createJournal" } });
      }
      const scope = { tenantId: deps.tenantId, runId: parseId("run", options.runId) };
      await openJournalPath(options.createJournal === true, "startOrResume");
      return owned(deps, scope, { signal: options.signal, wait: options.waitForLease }, async (lease) =>
        (await deps.journal.head(scope)) === null
          ? startRun(deps, scope, task, options, lease)
          : resumeRun(deps, scope, options.signal, lease, {}, options.delegation, options.settings),
      );
    },

    async interrupt(runId: string, request: InterruptRequestOptions): Promise<{ interruptId: string }> {
      const parsed = interruptOf(request);
      const scope = { tenantId: deps.tenantId, runId };
      const state = (await load(deps, scope)).peek();
      if (state.phase === "finished") {
        throw new YokeError("RUN_FINISHED", `run ${runId} has finished (${state.outcome?.status}); it can no longer be interrupted`, { details: { ...scope } });
      }
      const appended = await appendInterrupt(deps, scope, parsed);
      const { interruptId } = appended;
      // A run this harness drives has its model call in flight cut short now, not at the next poll.
      abortLive(deps, runId, appended);
      deps.logger.info({ tenantId: scope.tenantId, runId, interruptId, kind: parsed.kind }, "interrupt requested");
      return { interruptId };
    },

    async getState(runId: string) {
      return (await load(deps, { tenantId: deps.tenantId, runId })).snapshot();
    },

    events(runId: string): AsyncIterable<YokeEvent> {
      const scope = { tenantId: deps.tenantId, runId };
      return {
        async *[Symbol.asyncIterator]() {
          let any = false;
          for await (const event of readYokeEvents(deps.journal, scope)) {
            any = true;
            yield event;
          }
          if (!any) throw notFound(scope);
        },
      };
    },

    stream: (task, streamOptions) => streamStart(deps, harness, task, streamOptions),

    resumeStream: (runId, streamOptions) => streamResume(deps, harness, runId, streamOptions),

    approve: (runId: string, approvalId: string, approveOptions: ApproveOptions) => approveRun(deps, runId, approvalId, approveOptions),

    deny: (runId: string, approvalId: string, denyOptions: DenyOptions) => denyRun(deps, runId, approvalId, denyOptions),

    async close(): Promise<void> {
      if (ownsJournal) await deps.journal.close();
    },
  };
  // `result.output` is the schema's validated value (structured-output.ts), so its type is the schema's.
  // Any harness may return a waiting run: a policy parks a call for approval, and without one a refusal,
  // a content filter or an escalation waits for a person.
  return harness;
}

/** Writes `run.started` with the first turn in one transaction, then drives the run. */
async function startRun(
  deps: HarnessDeps,
  scope: RunScope,
  input: string | NormalizedInput,
  startOptions: StartOptions,
  lease: HeldLease | undefined,
  parent?: ChildLink,
): Promise<RunResult | WaitingRunResult> {
  const settings = checkedSettings(deps, startOptions.settings, "start.settings");
  // Images and files are admitted and stored before anything is journaled: events hold references.
  const given = await storedInput(deps, scope, typeof input === "string" ? userInputOf(input, "start") : input);
  // The session first (its id is drawn where it always was), then the delegation, before anything is journaled or read: the delegation is the task's, never something a tool said.
  const session = await openSession(deps, scope, startOptions, parent !== undefined);
  try {
    const delegation = await delegationForStart(deps, given.task, startOptions.delegation);
    return await startOpened(deps, scope, given, startOptions, lease, parent, delegation, session, settings);
  } finally {
    session.started();
  }
}

async function startOpened(
  deps: HarnessDeps,
  scope: RunScope,
  given: StoredInput,
  startOptions: StartOptions,
  lease: HeldLease | undefined,
  parent: ChildLink | undefined,
  delegation: Awaited<ReturnType<typeof delegationForStart>>,
  session: SessionOpening,
  settings: ReturnType<typeof checkedSettings>,
): Promise<RunResult | WaitingRunResult> {
  const { task } = given;
  const { sessionId } = session;
  const compiled = createCompiledContext();
  compiled.history = session.history;
  const context = newContext(deps, scope, new RunStateAccumulator(), compiled, startOptions.signal, lease);
  // The run pins the registry's snapshot now: every tool it may call, for its whole life.
  const snapshot = deps.registry === undefined ? undefined : snapshotRecord(deps.registry.snapshot());
  const runStarted: YokeEventDraft = {
    type: "run.started",
    at: deps.clock.now(),
    causationId: null,
    data: {
      sessionId,
      task,
      ...(deps.systemPrompt === undefined ? {} : { systemPrompt: deps.systemPrompt }),
      tools: snapshot === undefined ? [...deps.tools.values()].map((tool) => tool.spec) : snapshot.revisions.map((revision) => revision.spec),
      ...(snapshot === undefined ? {} : { toolSnapshot: snapshot }),
      ...principalData(deps, scope, startOptions),
      limits: {
        maxTurns: deps.maxTurns,
        maxToolCallsPerTurn: deps.maxToolCallsPerTurn,
        maxEventOutputBytes: deps.maxEventOutputBytes,
        maxToolInputBytes: deps.maxToolInputBytes,
      },
      ...(parent === undefined ? {} : { parent: parentData(parent) }),
      ...(settings === undefined ? {} : { settings }),
      ...(session.continues === undefined ? {} : { continues: session.continues }),
      release: runningRelease(deps, snapshot?.digest),
    },
  };
  // The run's first turn (and its budget) shares the run's first transaction.
  const opened = context.budget.open(
    parent === undefined ? undefined : { runId: parent.runId, actionId: parent.actionId, reservationId: parent.reservationId },
  );
  const head: YokeEventDraft[] = opened === undefined ? [runStarted] : [runStarted, opened];
  if (delegation !== undefined) head.push(delegatedDraft(deps, delegation));
  head.push(...laterInputDrafts(deps, given));
  // The fork's texts are journaled in run.started: the first request's context.compiled does not repeat them.
  noteJournaledArtifacts(context.compiled, forkArtifacts(parent?.fork).keys());
  const turn = Turn.open(context);
  turn.add(head);
  addNextTurn(turn);
  await turn.commit();
  context.logger.info(
    {
      sessionId,
      tools: snapshot === undefined ? deps.tools.size : snapshot.revisions.length,
      maxTurns: deps.maxTurns,
      ...(snapshot === undefined ? {} : { toolSnapshot: snapshot.digest }),
    },
    "run started",
  );
  return runLoop(context);
}

/** `run.started.parent`: the link, and the fork when the child has one. */
function parentData(parent: ChildLink): NonNullable<EventData<"run.started">["parent"]> {
  const link = { runId: parent.runId, actionId: parent.actionId, contextRevision: parent.contextRevision };
  return parent.fork === undefined ? link : { ...link, fork: parent.fork };
}

/**
 * `run.started.principal`: the start's principal, else the harness's; with a policy and
 * neither, the tenant, unauthenticated, with no scopes. Without a policy and no principal,
 * nothing (as before policy).
 */
function principalData(
  deps: HarnessDeps,
  scope: RunScope,
  startOptions: StartOptions,
): { principal?: { id: string; authenticated: boolean; scopes: string[] } } {
  const given = startOptions.principal === undefined ? deps.principal : resolvePrincipal(startOptions.principal, "principal");
  if (given !== undefined) return { principal: { id: given.id, authenticated: given.authenticated, scopes: [...given.scopes] } };
  return deps.policy === undefined ? {} : { principal: { id: scope.tenantId, authenticated: false, scopes: [] } };
}

async function resumeRun(
  deps: HarnessDeps,
  scope: RunScope,
  signal: AbortSignal | undefined,
  lease: HeldLease | undefined,
  answer: WaitingAnswerOptions = {},
  delegation?: unknown,
  settings?: unknown,
): Promise<RunResult | WaitingRunResult> {
  const given = checkedSettingsChange(deps, settings, "resume.settings");
  const compiled = createCompiledContext();
  const budget = new RunBudget(deps, scope.runId);
  const facts = createRunFacts(signatureRules(deps));
  const accumulator = await load(deps, scope, compiled, budget, facts);
  checkPinnedDelegation(accumulator.peek(), delegation);
  compiled.history = await loadHistory(deps.journal, scope.tenantId, scope.runId, accumulator.peek().continues);
  const context = newContext(deps, scope, accumulator, compiled, signal, lease, budget, facts);
  // The release first: nothing of this resume is journaled under a release that may not drive the run.
  await (deps.settleRelease ?? checkRelease)(context);
  await changeSettings(context, given);
  await answerWaiting(context, answer);
  const state = accumulator.peek();
  if (state.phase !== "finished") context.logger.info({ phase: state.phase, seq: state.length, turns: state.turns }, "run resumed");
  return runLoop(context);
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new YokeError("CANCELLED", "start was cancelled before the run was created", { cause: signal.reason });
}
