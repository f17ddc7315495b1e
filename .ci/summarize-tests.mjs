// Prints the plain closing line CI reads ("N passed, N failed, N skipped") from vitest's JSON reports
// (one per Node version the suite ran on; the counts are summed), after naming every failed test with
// its report, so a failure is findable even when the run's output is cut short, and every test that
// passed only on its retry (.ci/retried-tests.txt).
import { existsSync, readFileSync } from "node:fs";

let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of process.argv.slice(2)) {
  const report = JSON.parse(readFileSync(file, "utf8"));
  passed += report.numPassedTests ?? 0;
  failed += report.numFailedTests ?? 0;
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
  for (const suite of report.testResults ?? []) {
    const failures = (suite.assertionResults ?? []).filter((test) => test.status === "failed");
    for (const test of failures) {
      console.log(`FAILED (${file}) ${suite.name} > ${test.fullName}`);
      for (const message of test.failureMessages ?? [])
        console.log(`  ${message.split("\n").slice(0, 6).join("\n  ")}`);
    }
    if (suite.status === "failed" && failures.length === 0) {
      console.log(
        `FAILED (${file}) ${suite.name}: ${(suite.message ?? "").split("\n").slice(0, 6).join("\n  ")}`,
      );
    }
  }
}
const retried = new URL("./retried-tests.txt", import.meta.url);
if (existsSync(retried)) process.stdout.write(readFileSync(retried, "utf8"));
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
