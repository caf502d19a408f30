// Prints the closing line CI reads, `N passed, N failed`, counted from vitest's JSON report.
// Exits non-zero when the report is missing, counts a failure, or ran no test at all.
import { existsSync, readFileSync } from "node:fs";

const path = process.argv[2];
if (!path || !existsSync(path)) {
  console.log("0 passed, 1 failed");
  console.error(`no vitest report at ${path}: the test run did not finish`);
  process.exit(1);
}
const report = JSON.parse(readFileSync(path, "utf8")) as {
  testResults: { assertionResults: { fullName: string; status: string; meta?: { summary?: string } }[] }[];
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  numFailedTestSuites: number;
};
// Tests that measure something (kill points tried, …) leave a one-line summary in their meta.
for (const file of report.testResults) {
  for (const test of file.assertionResults) {
    if (typeof test.meta?.summary === "string") console.log(`${test.fullName}: ${test.meta.summary}`);
  }
}
// A suite that fails to load has no failed test in it; count it so it cannot pass unseen.
const failed = report.numFailedTests + report.numFailedTestSuites;
const skipped = report.numPendingTests + report.numTodoTests;
console.log(`${report.numPassedTests} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failed > 0 || report.numPassedTests === 0 ? 1 : 0);
