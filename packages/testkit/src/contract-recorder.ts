// What the store contracts (journal, idempotency, leases) register tests with. By default it
// is vitest's own `describe`/`it`/`beforeEach`/`afterEach`, so `describeJournalContract` and
// the others register as they always did. Inside `recordContractTests` it records instead:
// every test becomes `{ title, run }`, its title the describe path below the suite, and `run`
// runs the enclosing `beforeEach` hooks, the body and the `afterEach` hooks. A test file then
// registers them with a literal `describe` and `it.for`, which `vitest list`'s static read of
// the file can see (it cannot see tests registered inside a helper).
import { format } from "node:util";
import { YokeError } from "@yoke/protocol";
import * as vitest from "vitest";

type Hook = () => unknown;
type Body = (...args: never[]) => unknown;

/** One recorded contract test. */
export interface ContractTest {
  /** The describe path below the suite and the test's name, joined with " > ". */
  readonly title: string;
  readonly run: () => Promise<void>;
}

/** A contract as data, for a test file that registers the tests itself. */
export interface ContractTests {
  /** The suite's name, as the `describe…Contract` function names it. */
  readonly name: string;
  readonly tests: readonly ContractTest[];
}

interface Scope {
  readonly names: readonly string[];
  readonly before: Hook[];
  readonly after: Hook[];
  readonly parent: Scope | undefined;
}

let recording: { scope: Scope; tests: ContractTest[]; suite: string | undefined } | undefined;

function record(name: string, body: Body, args: readonly unknown[] = []): void {
  const state = recording!;
  const chain: Scope[] = [];
  for (let scope: Scope | undefined = state.scope; scope !== undefined; scope = scope.parent) chain.unshift(scope);
  const title = [...state.scope.names, name].join(" > ");
  state.tests.push({
    title,
    run: async () => {
      let ran = 0;
      try {
        for (const scope of chain) {
          for (const hook of scope.before) await hook();
          ran += 1;
        }
        await (body as (...row: readonly unknown[]) => unknown)(...args);
      } finally {
        for (const scope of chain.slice(0, ran + 1).reverse()) for (const hook of scope.after) await hook();
      }
    },
  });
}

/** `describe`, recorded inside `recordContractTests`. */
export function describe(name: string, body: () => void): void {
  if (recording === undefined) return void vitest.describe(name, body);
  if (recording.suite === undefined) {
    // The suite's own describe: its name is the suite's, not part of each title.
    recording.suite = name;
    body();
    return;
  }
  const parent = recording.scope;
  recording.scope = { names: [...parent.names, name], before: [], after: [], parent };
  try {
    body();
  } finally {
    recording.scope = parent;
  }
}

function recordedIt(name: string, body: Body, timeout?: number): void {
  if (recording === undefined) return void vitest.it(name, body, timeout);
  record(name, body);
}

/** `it` (and `it.each` with `%s`-style names), recorded inside `recordContractTests`. */
export const it = Object.assign(recordedIt, {
  each:
    <Row extends readonly unknown[]>(rows: readonly Row[]) =>
    (name: string, body: (...row: Row) => unknown): void => {
      if (recording === undefined) return void vitest.it.each(rows as Row[])(name, body as never);
      for (const row of rows) record(format(name, ...row), body as Body, row);
    },
});

/** `beforeEach`, recorded inside `recordContractTests`. */
export function beforeEach(hook: Hook): void {
  if (recording === undefined) return void vitest.beforeEach(hook as never);
  recording.scope.before.push(hook);
}

/** `afterEach`, recorded inside `recordContractTests`. */
export function afterEach(hook: Hook): void {
  if (recording === undefined) return void vitest.afterEach(hook as never);
  recording.scope.after.push(hook);
}

/** Runs a `describe…Contract` registration and returns what it registered, as data. */
export function recordContractTests(register: () => void): ContractTests {
  if (recording !== undefined) {
    throw new YokeError("CONFIG_INVALID", "recordContractTests was called while it was already recording: a suite's registration may not record another suite");
  }
  const root: Scope = { names: [], before: [], after: [], parent: undefined };
  recording = { scope: root, tests: [], suite: undefined };
  try {
    register();
    return { name: recording.suite ?? "", tests: recording.tests };
  } finally {
    recording = undefined;
  }
}
