import type { RunScope, VerifyResult } from "@yoke/protocol";
import type { CommandContext } from "../cli/context.js";
import { EXIT } from "../cli/exit-codes.js";
import { parse } from "../cli/parse.js";
import { findRun } from "../inspect/load-run.js";
import { short } from "../inspect/clip.js";

export const VERIFY_USAGE = "yoke verify [<run>] [--tenant T] [--journal FILE] [--json]";

/** `yoke verify [<run>]`: walks the hash chain of one run, or of every run; exit 1 when any breaks, naming the first bad seq and why. */
export async function verifyCommand(context: CommandContext): Promise<number> {
  const { values, positionals } = parse(context.args, {}, { min: 0, max: 1, usage: VERIFY_USAGE });
  if (values.help) {
    context.out.lines([`usage: ${VERIFY_USAGE}`]);
    return 0;
  }
  const journal = await context.open(values.journal);
  try {
    let scopes: RunScope[];
    if (positionals[0] !== undefined) {
      scopes = [await findRun(journal, positionals[0], values.tenant)];
    } else {
      scopes = [];
      for (const tenantId of values.tenant === undefined ? await journal.tenants() : [values.tenant]) {
        for await (const run of journal.listRuns(tenantId)) scopes.push({ tenantId, runId: run.runId });
      }
    }
    const results: (RunScope & { result: VerifyResult })[] = [];
    for (const [index, scope] of scopes.entries()) {
      context.progress(`verifying ${index + 1}/${scopes.length}: ${scope.runId}`);
      results.push({ ...scope, result: await journal.verify(scope) });
    }
    context.progressDone();
    const broken = results.filter((entry) => !entry.result.ok).length;
    if (values.json) {
      context.out.json({ journal: journal.location, ok: broken === 0, runs: results.map(({ result, ...scope }) => ({ ...scope, ...result })) });
    } else {
      context.out.lines([
        ...results.map(({ tenantId, runId, result }) =>
          result.ok
            ? `ok      ${tenantId} ${runId}: ${result.events} events, head ${short(result.headHash)}`
            : `BROKEN  ${tenantId} ${runId}: first bad seq ${result.firstBadSeq} (${result.reason}): ${result.message}`,
        ),
        `${results.length} run${results.length === 1 ? "" : "s"} verified, ${broken} broken`,
      ]);
    }
    return broken === 0 ? EXIT.ok : EXIT.checkFailed;
  } finally {
    await journal.close();
  }
}
