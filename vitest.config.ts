import { defineConfig } from "vitest/config";

const ci = process.env.CI === "true" || process.env.CI === "1";

export default defineConfig({
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
    // In CI a JSON report lets .ci/run print the plain "N passed, N failed" closing line.
    reporters: ci ? ["default", "json"] : ["default"],
    outputFile: ci ? { json: ".ci/test-results.json" } : {},
  },
});
