// `pnpm security`: the AgentDojo v1 dev set (banking, slack: 249 pairs) through the real
// runtime, undefended, under (i) a per-task policy and under (ii) the suite-wide policy (with
// nobody approving, and with the user approving exactly the calls their task asked for);
// prints the report with every blocked benign call. Needs a build (`turbo run build`).
import { SUITE_NAMES, agentDojoSuite, formatReport, runSuite, suiteReport, userApprover, type SuiteReport } from "@yoke/testkit/security";
import { perTaskPolicy, runtimeHarness, suiteWidePolicy } from "./harnesses.ts";

const reports: SuiteReport[] = [];
for (const name of SUITE_NAMES) {
  const suite = agentDojoSuite(name);
  const engine = suiteWidePolicy(name);
  reports.push(suiteReport(await runSuite({ suite, harness: runtimeHarness() }), "undefended"));
  reports.push(suiteReport(await runSuite({ suite, harness: runtimeHarness({ policy: perTaskPolicy }) }), "(i) per-task policy"));
  reports.push(suiteReport(await runSuite({ suite, harness: runtimeHarness({ policy: () => engine }) }), "(ii) suite-wide policy, nobody approves"));
  reports.push(
    suiteReport(
      await runSuite({ suite, harness: runtimeHarness({ policy: () => engine, approver: userApprover }) }),
      "(ii) suite-wide policy, the user approves what they asked for",
    ),
  );
}
process.stdout.write(`${formatReport(reports)}\n`);
