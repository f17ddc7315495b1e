import { DifferentialHarness } from "./harness.js";
import { runInSandbox } from "./sandbox.js";

/**
 * A harness whose sandbox has been seen to run a command, or why it cannot run here (no bwrap, no
 * user namespaces, no git to build the canary repository...). Callers skip with the reason, or fail
 * under AGENTSCOPE_REQUIRE_SERVICES=1 (see reportMissingService).
 */
export async function openHarness(concurrency: number): Promise<DifferentialHarness | string> {
  let harness: DifferentialHarness | undefined;
  try {
    harness = DifferentialHarness.create(concurrency);
    const run = await runInSandbox(harness.tree, "echo ready", { declared: [], timeoutMs: 10_000 });
    if (run.exitCode !== 0 || run.output !== "ready\n") {
      harness.close();
      return `bubblewrap cannot run the differential sandbox here (exit ${run.exitCode}): ${run.output.slice(0, 300)}`;
    }
    return harness;
  } catch (error) {
    harness?.close();
    return `the differential sandbox cannot be set up here: ${(error as Error).message}`;
  }
}
