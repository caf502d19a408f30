import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { YokeError, type JournalV1, type Outcome } from "@yoke/protocol";
import type { Harness } from "@yoke/runtime";
import type { CommandContext } from "../cli/context.js";
import { usageError } from "../cli/exit-codes.js";
import { parse } from "../cli/parse.js";
import { findRun } from "../inspect/load-run.js";

export const RESUME_USAGE = "yoke resume <run> --harness <module> [--tenant T] [--journal FILE] [--json]";

/** What `yoke resume` hands the factory of a `--harness` module. */
export interface HarnessFactoryContext {
  /** The journal `--journal` opened, for appends: build the harness on exactly this journal. */
  readonly journal: JournalV1;
  readonly tenantId: string;
  readonly runId: string;
}

/**
 * What a `--harness` module exports, as its default export or as `createHarness`: a function
 * that builds the harness the run continues on (its provider, tools, policy, budget, …),
 * given the journal the CLI opened. It may be async.
 *
 * @example
 * ```ts
 * // my-harness.ts — `yoke resume run_42 --harness ./my-harness.ts`
 * import type { HarnessFactory } from "@yoke/cli";
 * import { createHarness } from "@yoke/runtime";
 * const factory: HarnessFactory = ({ journal, tenantId }) => createHarness({ journal, tenantId, provider, tools });
 * export default factory;
 * ```
 */
export type HarnessFactory = (context: HarnessFactoryContext) => Pick<Harness<unknown>, "resume"> | Promise<Pick<Harness<unknown>, "resume">>;

interface ResumeResult {
  readonly outcome?: Outcome | undefined;
  readonly waiting?: { readonly kind: string; readonly reason?: string } | undefined;
  readonly state?: { readonly turns?: number };
}

/** The factory a `--harness` module exports (default export, or `createHarness`); CONFIG_INVALID naming the module otherwise. */
export async function loadFactory(path: string): Promise<HarnessFactory> {
  const file = resolve(path);
  if (!existsSync(file)) throw new YokeError("CONFIG_INVALID", `--harness ${path}: no such file`, { details: { harness: file } });
  let module: { default?: unknown; createHarness?: unknown };
  try {
    module = (await import(pathToFileURL(file).href)) as typeof module;
  } catch (error) {
    throw new YokeError("CONFIG_INVALID", `--harness ${path} did not load: ${(error as Error).message.split("\n")[0]}`, { details: { harness: file } });
  }
  const factory = typeof module.default === "function" ? module.default : module.createHarness;
  if (typeof factory !== "function") {
    throw new YokeError(
      "CONFIG_INVALID",
      `--harness ${path} exports no factory: export default (or export createHarness) a function ({ journal, tenantId, runId }) => harness`,
      {
        details: { harness: file },
      },
    );
  }
  return factory as HarnessFactory;
}

/** `yoke resume <run> --harness <module>`: hands the run back to the harness the module builds and drives it on (to an outcome, or until it waits). */
export async function resumeCommand(context: CommandContext): Promise<number> {
  const { values, positionals } = parse(context.args, { harness: { type: "string" } }, { min: 1, max: 1, usage: RESUME_USAGE });
  if (values.help) {
    context.out.lines([`usage: ${RESUME_USAGE}`]);
    return 0;
  }
  if (values.harness === undefined) throw usageError("--harness <module> is required", RESUME_USAGE);
  const factory = await loadFactory(values.harness);
  const journal = await context.open(values.journal, { write: true });
  try {
    const scope = await findRun(journal, positionals[0]!, values.tenant);
    const harness = await factory({ journal, ...scope });
    if (harness === null || typeof harness !== "object" || typeof harness.resume !== "function") {
      throw new YokeError("CONFIG_INVALID", `--harness ${values.harness}: the factory returned no harness (an object with resume())`);
    }
    const result = (await harness.resume(scope.runId)) as ResumeResult;
    const turns = result.state?.turns;
    if (values.json) {
      context.out.json({ ...scope, outcome: result.outcome ?? null, waiting: result.waiting ?? null, turns: turns ?? null });
    } else if (result.outcome) {
      context.out.lines([`run ${scope.runId}: ${result.outcome.status}${turns === undefined ? "" : ` after ${turns} turns`}`]);
    } else {
      context.out.lines([`run ${scope.runId}: waits (${result.waiting?.kind ?? "unknown"})${result.waiting?.reason ? `: ${result.waiting.reason}` : ""}`]);
    }
    return 0;
  } finally {
    await journal.close();
  }
}
