/**
 * @yoke/verifier/contract — the contract every `VerifierV1` keeps, as tests any test runner
 * registers: `describeVerifier(name, subject, { describe, it })` with vitest's (or jest's, or
 * node:test's) own functions, or `verifierContractTests(subject)` as data. Needs no test
 * framework of its own: a broken promise throws YokeError TESTKIT_EXPECTATION_FAILED.
 */
import {
  type BudgetAmounts,
  BudgetAmountsSchema,
  type VerifierInput,
  type VerifierV1,
  type VerifierVerdict,
  VerifierVerdictSchema,
  YokeError,
  type YokeErrorDetailsByCode,
} from "@yoke/protocol";

/** What the suite runs against: a fresh verifier and a fresh input for each use. */
export interface VerifierContractSubject {
  /** The verifier under test (called once per test). */
  create(): VerifierV1 | Promise<VerifierV1>;
  /**
   * An input it can verify (called once per `verify`). Two calls must describe the same run:
   * same events, answer and workspace, and a clock that does not move (`steppingClock(0)`), so
   * that "the same input gives the same verdict" can hold for a verdict that reports a duration.
   */
  input(): VerifierInput | Promise<VerifierInput>;
}

/** One contract test. */
export interface VerifierContractTest {
  readonly title: string;
  readonly run: () => Promise<void>;
}

/** The test functions `describeVerifier` registers with (vitest's `describe` and `it` fit). */
export interface ContractRunner {
  describe(name: string, body: () => void): void;
  it(name: string, body: () => Promise<void>): void;
}

function fail(message: string, details: YokeErrorDetailsByCode["TESTKIT_EXPECTATION_FAILED"] = {}): never {
  throw new YokeError("TESTKIT_EXPECTATION_FAILED", `verifier contract: ${message}`, { details });
}

/** `value` as JSON with object keys sorted: equal verdicts, equal strings. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}

function abortedSignal(): AbortSignal {
  const controller = new AbortController();
  controller.abort(new YokeError("CANCELLED", "the contract suite aborted this signal"));
  return controller.signal;
}

/** Runs `verify`; the verdict, or the error it rejected with. A rejection that is not a YokeError fails the contract. */
async function settle(verifier: VerifierV1, input: VerifierInput): Promise<{ verdict: VerifierVerdict } | { error: YokeError }> {
  let pending: Promise<VerifierVerdict>;
  try {
    pending = verifier.verify(input);
  } catch (error) {
    fail(`verify() of "${verifier.id}" threw synchronously instead of returning a promise`, { error: String(error) });
  }
  try {
    return { verdict: await pending };
  } catch (error) {
    if (YokeError.isInstance(error)) return { error };
    fail(
      `verify() of "${verifier.id}" rejected with something that is not a YokeError: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`,
    );
  }
}

function checkVerdict(verifier: VerifierV1, verdict: VerifierVerdict): void {
  const parsed = VerifierVerdictSchema.safeParse(verdict);
  if (!parsed.success) fail(`the verdict of "${verifier.id}" does not match VerifierVerdictSchema: ${parsed.error.message}`);
  if (verdict.verifierId !== verifier.id) fail(`the verdict names verifier "${verdict.verifierId}", not "${verifier.id}"`);
  if (verdict.kind !== verifier.kind) fail(`the verdict's kind is "${verdict.kind}", not the verifier's "${verifier.kind}"`);
  if (verdict.passed && verdict.retry === false) fail(`a passing verdict of "${verifier.id}" says retry: false`);
}

/**
 * The contract as data: each test's title and body. A body rejects with YokeError
 * TESTKIT_EXPECTATION_FAILED naming what the verifier broke.
 *
 * @example
 * ```ts
 * for (const test of verifierContractTests({ create: () => myVerifier, input: () => myInput() })) await test.run();
 * ```
 */
export function verifierContractTests(subject: VerifierContractSubject): VerifierContractTest[] {
  const tests: VerifierContractTest[] = [
    {
      title: "is a VerifierV1: version v1, a non-empty id and kind, a boolean replaySafe, a reserve of integer amounts",
      run: async () => {
        const verifier = await subject.create();
        if (verifier.specificationVersion !== "v1") fail(`specificationVersion is ${String(verifier.specificationVersion)}, not "v1"`);
        if (typeof verifier.id !== "string" || verifier.id.length === 0) fail("the id is empty");
        if (typeof verifier.kind !== "string" || verifier.kind.length === 0) fail(`"${verifier.id}" has an empty kind`);
        if (typeof verifier.replaySafe !== "boolean") fail(`"${verifier.id}": replaySafe is not a boolean`);
        const reserve: BudgetAmounts | undefined = verifier.reserve;
        if (reserve !== undefined && !BudgetAmountsSchema.safeParse(reserve).success)
          fail(`"${verifier.id}": reserve is not integer budget amounts`, { reserve });
      },
    },
    {
      title: "returns a verdict VerifierVerdictSchema accepts, naming its own id and kind",
      run: async () => {
        const verifier = await subject.create();
        const outcome = await settle(verifier, await subject.input());
        if ("error" in outcome) fail(`"${verifier.id}" rejected on the subject's input: ${outcome.error.code} ${outcome.error.message}`);
        checkVerdict(verifier, outcome.verdict);
      },
    },
    {
      title: "rejects with YokeError CANCELLED when the signal is already aborted",
      run: async () => {
        const verifier = await subject.create();
        const outcome = await settle(verifier, { ...(await subject.input()), signal: abortedSignal() });
        if ("verdict" in outcome) fail(`"${verifier.id}" returned a verdict although its signal was aborted`);
        if (outcome.error.code !== "CANCELLED") fail(`"${verifier.id}" rejected with ${outcome.error.code}, not CANCELLED, for an aborted signal`);
      },
    },
    {
      title: "gives the same verdict for the same input",
      run: async () => {
        const verifier = await subject.create();
        const first = await settle(verifier, await subject.input());
        const second = await settle(verifier, await subject.input());
        const shown = (outcome: typeof first) => canonical("verdict" in outcome ? outcome.verdict : { error: outcome.error.code });
        if (shown(first) !== shown(second)) fail(`"${verifier.id}" answered the same input twice differently`, { first: shown(first), second: shown(second) });
      },
    },
    {
      title: "settles with a verdict or a YokeError when its signal aborts while it runs",
      run: async () => {
        const verifier = await subject.create();
        const controller = new AbortController();
        const input = { ...(await subject.input()), signal: controller.signal };
        const outcome = settle(verifier, input);
        controller.abort(new YokeError("CANCELLED", "the contract suite aborted this signal"));
        const settled = await outcome;
        if ("verdict" in settled) checkVerdict(verifier, settled.verdict);
      },
    },
    {
      title: "never rejects with anything but a YokeError, even on a run with no events, an empty answer and no workspace",
      run: async () => {
        const verifier = await subject.create();
        const input = await subject.input();
        const { workspace: _workspace, ...rest } = input;
        const bare: VerifierInput = { ...rest, events: input.events.slice(0, 1), answer: { text: "", response: input.answer.response } };
        const outcome = await settle(verifier, bare);
        if ("verdict" in outcome) checkVerdict(verifier, outcome.verdict);
      },
    },
  ];
  return tests;
}

/**
 * Registers the verifier contract with your test runner.
 *
 * @example
 * ```ts
 * import { describe, it } from "vitest";
 * import { describeVerifier } from "@yoke/verifier/contract";
 *
 * describeVerifier("unit tests", { create: () => commandVerifier({ id: "tests", command: "npm", args: ["test"], timeoutMs: 60_000 }), input: () => inputFor(workspace) }, { describe, it });
 * ```
 */
export function describeVerifier(name: string, subject: VerifierContractSubject, runner: ContractRunner): void {
  runner.describe(`verifier contract: ${name}`, () => {
    for (const test of verifierContractTests(subject)) runner.it(test.title, test.run);
  });
}
