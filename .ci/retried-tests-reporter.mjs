// A vitest reporter for CI: a test that failed and then passed on its retry is written to
// .ci/retried-tests.txt (with the Node version), which .ci/summarize-tests.mjs prints, so a flaky
// test is named on record instead of passing unseen.
import { appendFileSync } from "node:fs";

export default class RetriedTestsReporter {
  onTestCaseResult(testCase) {
    const { retryCount = 0 } = testCase.diagnostic() ?? {};
    if (retryCount === 0 || testCase.result().state !== "passed") return;
    // the failed attempts' errors stay on the result: the first lines of the first say what failed
    const [first] = testCase.result().errors ?? [];
    const why = first
      ? `\n  ${String(first.stack ?? first.message)
          .split("\n")
          .slice(0, 4)
          .join("\n  ")}`
      : "";
    const line = `RETRIED (Node ${process.version}) ${testCase.module.moduleId} > ${testCase.fullName}: passed on retry ${retryCount}${why}\n`;
    appendFileSync(new URL("./retried-tests.txt", import.meta.url), line);
  }
}
