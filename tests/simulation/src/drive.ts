import { createMemoryJournal } from "@yoke/journal";
import { YokeError, type JournalV1 } from "@yoke/protocol";
import { type CompletionCheck, createHarness, defineTool, type Harness, type HarnessOptions, type RunResult, type WaitingRunResult } from "@yoke/runtime";
import { createScriptedModel } from "@yoke/testkit";
import { isSimulatedCrash, type SimDriven, type SimWorld } from "@yoke/testkit/sim";

/** How long a harness's lease lives in a world: a harness that crashed holds its run this long. */
const LEASE_TTL_MS = 10_000;
/** Rounds of answering a waiting run before the drive gives up (a world needs far fewer). */
const MAX_ROUNDS = 32;

export interface DrivenWorld extends SimDriven {
  readonly journal: JournalV1;
  /** Harnesses built: 2 when the world crashed the first. */
  readonly harnesses: number;
}

type Result = RunResult | WaitingRunResult;

/**
 * Runs a world's run on @yoke/runtime: a memory journal on the world's clock, a harness
 * built from the world's parts (model, tools, policy, budget, clock, ids, timers, sleep),
 * the world's interrupts sent at their moments, its approvals granted or denied and its
 * person's answers given whenever the run waits. When the world's crash strikes (the first
 * harness's journal throws at the k-th append), a fresh harness on the same journal, with
 * another owner, waits out the dead one's lease and resumes (or starts again, when nothing
 * was written).
 */
export async function driveWorld(world: SimWorld): Promise<DrivenWorld> {
  const journal = createMemoryJournal({ clock: world.clock });
  let harnesses = 0;
  const build = (store: JournalV1): Harness => {
    harnesses += 1;
    return createHarness(worldHarnessOptions(world, store, `owner_${harnesses}`)) as Harness;
  };
  let harness = build(world.crashing(journal));
  let crashed = false;
  const unexpected: unknown[] = [];
  // Each call of the drive goes through here: a crash hands the run to a fresh harness.
  const survive = async (call: () => Promise<Result>): Promise<Result> => {
    try {
      return await call();
    } catch (error) {
      if (crashed || !isSimulatedCrash(error)) throw error;
      crashed = true;
      harness = build(journal);
      // The dead harness's lease holds the run until it lapses on the world's clock.
      return harness.startOrResume(task(world), { runId: world.runId, waitForLease: true });
    }
  };
  for (const interrupt of world.interrupts) {
    world.timers.setTimeout(() => {
      harness.interrupt(world.runId, interrupt.request).catch((error: unknown) => {
        // A run that has ended, a run not yet started again after a crash lost its start, or a
        // harness that died takes no interrupt: each is part of the world.
        if (!isSimulatedCrash(error) && !YokeError.hasCode(error, "RUN_FINISHED") && !YokeError.hasCode(error, "RUN_NOT_FOUND")) unexpected.push(error);
      });
    }, interrupt.afterMs);
  }
  let result = await survive(() => harness.start(task(world), { runId: world.runId }));
  let approvals = 0;
  let answers = 0;
  for (let round = 0; result.waiting !== undefined && round < MAX_ROUNDS; round++) {
    const waiting = result.waiting;
    if (waiting.kind === "approval") {
      for (const approval of waiting.approvals) {
        const granted = world.grants(approvals++);
        await survive(async () => {
          if (granted) await harness.approve(world.runId, approval.approvalId, { approver: "world" });
          else await harness.deny(world.runId, approval.approvalId, { approver: "world", reason: "the world denies it" });
          return result;
        });
      }
      result = await survive(() => harness.resume(world.runId, { waitForLease: true }));
    } else {
      const answer = world.answer(answers++);
      result = await survive(() => harness.resume(world.runId, { ...answer, waitForLease: true }));
    }
  }
  await harness.close();
  if (unexpected.length > 0) throw unexpected[0];
  return { journal, harnesses };
}

/**
 * The options of a harness on `world`'s parts, writing to `journal` as `ownerId`: what the
 * drive builds its harnesses from, and what a replay of a world's journal is given.
 */
export function worldHarnessOptions(world: SimWorld, journal: JournalV1, ownerId: string): HarnessOptions {
  return {
    journal,
    provider: createScriptedModel(world.model.steps(), { recordCalls: false }),
    tools: world.tools.map((tool) => defineTool(tool)),
    tenantId: world.tenantId,
    clock: world.clock,
    ids: world.ids,
    timers: world.timers,
    sleep: world.sleep,
    runtimeVersion: "@yoke/runtime@simulation",
    lease: { ttlMs: LEASE_TTL_MS, ownerId, ownerIsGone: () => false },
    maxTurns: world.maxTurns,
    ...(world.policy === undefined ? {} : { policy: world.policy }),
    ...(world.budget === undefined ? {} : { budget: { limits: world.budget.limits, outputReserve: 100 } }),
    ...(world.verifier === undefined ? {} : { checkCompletion: completionGate(world.verifier.failuresBeforePass) }),
  };
}

/** The world's gate, a pure function of the run's state (so a resumed run decides as the first did): the n-th final answer passes when n > `failuresBeforePass`. */
const completionGate =
  (failuresBeforePass: number): CompletionCheck =>
  async ({ state }) => {
    const answers = state.messages.filter((message) => message.role === "assistant" && !message.content.some((part) => part.type === "tool-call")).length;
    return answers > failuresBeforePass ? { passed: true } : { passed: false, reason: `the world's gate fails answer ${answers}` };
  };

const task = (world: SimWorld) => `Simulated world ${world.seed} (size ${world.size}): do what the script says.`;
