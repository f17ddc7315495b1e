import { createRequire } from "node:module";
import { cruise, type IReporterOutput } from "dependency-cruiser";
import { describe, expect, it } from "vitest";

const require = createRequire(import.meta.url);
const config = require("../../.dependency-cruiser.cjs");

async function violations(paths: string[]) {
  const result: IReporterOutput = await cruise(paths, {
    validate: true,
    ruleSet: { forbidden: config.forbidden },
    tsPreCompilationDeps: true,
    doNotFollow: { path: "node_modules" },
  });
  if (typeof result.output === "string") throw new Error("unexpected string output");
  return result.output.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
}

describe("layers (DESIGN.md §2)", () => {
  it("no file in src imports from a layer above its own, and there are no cycles", async () => {
    expect(await violations(["src"])).toEqual([]);
  }, 60_000);

  it("the rules catch an upward import", async () => {
    const found = await violations(["test/architecture/fixtures/src"]);
    expect(found.length).toBeGreaterThan(0);
  }, 60_000);

  it("protocol/ sits just above message/: it may not import event/, and the client may import it", async () => {
    const found = await violations(["test/architecture/fixtures/src"]);
    expect(found).toContain(
      "protocol-imports-upward: test/architecture/fixtures/src/protocol/wire.ts -> test/architecture/fixtures/src/event/event-thing.ts",
    );
    expect(found.filter((line) => line.includes("fixtures/src/client/"))).toEqual([]);
  }, 60_000);
});
