// A vitest reporter for CI: a test that failed and then passed on its retry is written to
// .ci/retried-tests.txt (with the Node version), which .ci/summarize-tests.mjs prints, so a flaky
// test is named on record instead of passing unseen.
import { appendFileSync } from "node:fs";

export default class RetriedTestsReporter {
  onTestCaseResult(testCase) {
    const { retryCount = 0 } = testCase.diagnostic() ?? {};
    if (retryCount === 0 || testCase.result().state !== "passed") return;
    const line = `RETRIED (Node ${process.version}) ${testCase.module.moduleId} > ${testCase.fullName}: passed on retry ${retryCount}\n`;
    appendFileSync(new URL("./retried-tests.txt", import.meta.url), line);
  }
}
