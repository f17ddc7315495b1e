import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const ci = process.env.CI === "true" || process.env.CI === "1";

const src = fileURLToPath(new URL("./src/", import.meta.url));

export default defineConfig({
  // Examples import agentscope by its package name, as a user's project does; in the repo the names
  // resolve to the sources (as tsconfig.json's paths do for tsc and tsx).
  resolve: {
    alias: [
      { find: /^agentscope$/, replacement: `${src}index.ts` },
      { find: /^agentscope\/model\/kit$/, replacement: `${src}model/provider-kit/index.ts` },
      { find: /^agentscope\/(.+)$/, replacement: `${src}$1/index.ts` },
    ],
  },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: "forks",
    setupFiles: ["test/setup/console-guard.ts"],
    // Type tests (test/types/*.test-d.ts, expectTypeOf): tsc checks them in the same run; never executed.
    typecheck: {
      enabled: true,
      include: ["test/types/**/*.test-d.ts"],
      tsconfig: "test/types/tsconfig.json",
    },
    // In CI a failed test runs once more: a test that fails twice fails the run; one that passes on its
    // retry is named by .ci/retried-tests-reporter.mjs in the closing summary (a flake is reported,
    // never hidden, and a load spike on the 2-core runner does not throw a green suite away).
    retry: ci ? 1 : 0,
    // In CI a JSON report lets .ci/run print the plain "N passed, N failed" closing line.
    reporters: ci ? ["default", "json", "./.ci/retried-tests-reporter.mjs"] : ["default"],
    outputFile: ci ? { json: ".ci/test-results.json" } : {},
  },
});
