import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { reportMissingService } from "../../support/services.js";
import { createCanaryTree } from "./differential/canary-tree.js";
import { corpusCommands } from "./differential/corpus.js";
import { isKnownOpen, loadFinds, openObservations } from "./differential/finds.js";
import { generateCommands } from "./differential/generator.js";
import { type DifferentialResult, describeFind, type Find } from "./differential/harness.js";
import { realJudge } from "./differential/judge.js";
import { openHarness } from "./differential/open-harness.js";
import { differentialSettings } from "./differential/settings.js";

/**
 * The differential test: every command the Bash permission check lets run without asking (even in
 * explore mode) is run for real, in a bubblewrap sandbox over a canary tree, and must not change a
 * file, print a secret, run a program off the read-only allow-list or write to the log. The
 * commands are the existing corpus and a seeded grammar of the allow-listed programs. What it finds
 * goes into fixtures/differential-finds.json; see docs/permissions.md, "The differential test".
 */
const FINDS_FILE = join(import.meta.dirname, "fixtures", "differential-finds.json");
const recorded = loadFinds(FINDS_FILE);
const open = openObservations(recorded);
const settings = differentialSettings();
const harness = await openHarness(settings.concurrency);
afterAll(() => {
  if (typeof harness !== "string") harness.close();
});

/** Finds not already recorded as open, as one message naming each command and what it did. */
function unexpected(finds: readonly Find[]): string {
  return finds
    .filter((find) => !isKnownOpen(find, open))
    .map(describeFind)
    .join("\n\n");
}

/**
 * Says how many commands were tried: as a test annotation (kept by reporters) and on stdout (the
 * default reporter shows annotations of failed tests only; console.* is reserved by the console guard).
 */
async function report(annotate: (message: string) => Promise<unknown>, line: string): Promise<void> {
  await annotate(line);
  process.stdout.write(`differential test: ${line}\n`);
}

function summary(label: string, result: DifferentialResult): string {
  const known = result.finds.filter((find) => isKnownOpen(find, open)).length;
  return (
    `${label}: judged ${result.tried} commands, ran ${result.ran} in the sandbox (${result.timedOut} timed out); ` +
    `${result.finds.length} did what a reader must not (${known} of them recorded as open finds)`
  );
}

describe("the differential test: what the analysis allows, run for real", () => {
  if (typeof harness === "string") return reportMissingService(harness);

  it("every corpus command it allows only reads", { timeout: 60_000 }, async ({ annotate }) => {
    const result = await harness.run(corpusCommands());
    await report(annotate, summary("corpus", result));
    expect(result.ran).toBeGreaterThan(20);
    expect(unexpected(result.finds)).toBe("");
  });

  it(`every generated command it allows only reads (${settings.mode}: seed ${settings.seed}, ${settings.count} commands)`, {
    timeout: settings.testTimeoutMs,
  }, async ({ annotate }) => {
    const result = await harness.run(generateCommands(settings.seed, settings.count));
    await report(annotate, summary(`generated (${settings.mode}, seed ${settings.seed})`, result));
    expect(result.tried).toBe(settings.count);
    expect(result.ran).toBeGreaterThan(settings.count / 10);
    expect(unexpected(result.finds)).toBe("");
  });
});

describe("finds fixed by the Bash tool's environment stay harmless when they run", () => {
  if (typeof harness === "string") return reportMissingService(harness);
  for (const find of recorded.filter((entry) => entry.fixedBy === "environment")) {
    const test = find.open ? it.fails : it;
    test(`${find.open ? "(open) " : ""}${JSON.stringify(find.command)}: ${find.happened[0]}`, async () => {
      const result = await harness.runIn(find.repository ?? "hostile", [find.command]);
      expect(result.ran, `${find.command} is no longer allowed: the find may lose "fixedBy"`).toBe(1);
      expect(result.finds.map(describeFind).join("\n\n")).toBe("");
    });
  }
});

describe("recorded finds stay fixed: none is allowed without asking any more", () => {
  const trees = { hostile: createCanaryTree("hostile"), benign: createCanaryTree("benign") };
  afterAll(() => {
    trees.hostile.remove();
    trees.benign.remove();
  });
  for (const find of recorded.filter((entry) => entry.fixedBy !== "environment")) {
    const test = find.open ? it.fails : it;
    test(`${find.open ? "(open) " : ""}${JSON.stringify(find.command)}: ${find.happened[0]}`, async () => {
      const judgement = await realJudge(find.command, trees[find.repository ?? "hostile"].work);
      expect(judgement.allowed, `${find.command} is still allowed: ${judgement.analysis.reason}`).toBe(false);
    });
  }
});
