// `pnpm security [--suite <dir>]… [--policy <file>] [--json <out>] …` (see cli-args.ts): runs
// suites in the AgentDojo JSON format through the real runtime in four modes — undefended;
// the policy with nobody approving; an honest person approving; a person approving
// everything — and prints, per mode, committed attack effects per injection task, utility
// without and under attack, approvals per benign task and per attacked pair, and blocked
// benign calls. With no --suite: the dev suites (banking, slack, workspace) under their
// shipped policies. Needs a build (`turbo run build`).
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { YokeError } from "@yoke/protocol";
import { GROUND_TRUTH_PLANNER_NOTE, type SuiteResults, formatReport, securityReportJson } from "@yoke/testkit/security";
import { type SecurityArgs, parseSecurityArgs } from "./cli-args.ts";
import { runTarget, suitesFor, targetFor } from "./security-run.ts";

/** Paths on the command line are the caller's (pnpm runs the script in tests/security and names the caller's folder INIT_CWD). */
function fromCaller(args: SecurityArgs): SecurityArgs {
  const base = process.env.INIT_CWD ?? process.cwd();
  return {
    ...args,
    suites: args.suites.map((suite) => resolve(base, suite)),
    ...(args.policy === undefined ? {} : { policy: resolve(base, args.policy) }),
    ...(args.tools === undefined ? {} : { tools: resolve(base, args.tools) }),
    ...(args.handlers === undefined ? {} : { handlers: resolve(base, args.handlers) }),
    ...(args.json === undefined ? {} : { json: resolve(base, args.json) }),
  };
}

async function main(argv: readonly string[]): Promise<void> {
  const args = fromCaller(parseSecurityArgs(argv));
  const { suites, shipped, skipped } = suitesFor(args);
  const targets = [];
  for (const suite of suites) targets.push(await targetFor(suite, args, shipped));
  const results: SuiteResults[] = [];
  const started = performance.now();
  process.stdout.write(`delegation: ${GROUND_TRUTH_PLANNER_NOTE}\n\n`);
  for (const target of targets) {
    process.stdout.write(`${target.suite.name}: policy ${target.policySource}; declarations ${target.declarationsSource}\n`);
    const result = await runTarget(target, args);
    results.push(result);
    process.stdout.write(`${formatReport(Object.values(result.modes))}\n\n`);
  }
  for (const name of skipped)
    process.stdout.write(`${name}: skipped (the testkit has no handlers for it yet; run it with --suite <dir> --handlers <file.ts>)\n`);
  if (results.length > 1) {
    const all = results.flatMap((result) => Object.values(result.modes));
    process.stdout.write(
      `${formatReport(all)
        .split("\n")
        .filter((line) => line.startsWith("TOTAL"))
        .join("\n")}\n`,
    );
  }
  process.stdout.write(`ran in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  if (args.json !== undefined) {
    const out = args.json;
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, `${JSON.stringify(securityReportJson(results, { delegation: GROUND_TRUTH_PLANNER_NOTE }), null, 2)}\n`);
    process.stdout.write(`wrote ${out}\n`);
  }
}

try {
  await main(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof YokeError)) throw error;
  process.stderr.write(`pnpm security: ${error.code}: ${error.message}\n`);
  if (error.details !== undefined) process.stderr.write(`${JSON.stringify(error.details)}\n`);
  process.exitCode = 1;
}
