import { defineConfig } from "vitest/config";

const ci = process.env.CI === "true" || process.env.CI === "1";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: "forks",
    setupFiles: ["test/setup/console-guard.ts"],
    // In CI a JSON report lets .ci/run print the plain "N passed, N failed" closing line.
    reporters: ci ? ["default", "json"] : ["default"],
    outputFile: ci ? { json: ".ci/test-results.json" } : {},
  },
});
