import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { analyzeBash } from "../../../src/tool/builtin/index.js";
import { reportMissingService } from "../../support/services.js";
import { corpusCommands } from "./differential/corpus.js";
import { loadFinds } from "./differential/finds.js";
import { generateCommands } from "./differential/generator.js";
import { declaredPrograms, type Judge, realJudge } from "./differential/judge.js";
import { openHarness } from "./differential/open-harness.js";
import { CI_COUNT, CI_SEED, differentialSettings } from "./differential/settings.js";

/**
 * The differential test's own honesty: a fake analysis that calls everything read-only must be
 * caught by each detector on its own, and real reads must not be reported.
 */
const harness = await openHarness(2);

/** An analysis that lies: every command is allowed, with the programs the real analysis names. */
const liar: Judge = async (command, workDir) => {
  const real = await realJudge(command, workDir);
  return { ...real, allowed: true, declared: declaredPrograms(analyzeBash(command)) };
};

describe("the differential harness catches a wrong verdict", () => {
  if (typeof harness === "string") return reportMissingService(harness);
  afterAll(() => harness.close());

  it.each([
    ["echo pwned > a.txt", ["changed-file"]],
    ["/usr/bin/touch pwned", ["changed-file"]],
    ["cat .env", ["secret-read"]],
    ["cat keys-link/id_rsa", ["secret-read"]],
    ["sh -c id", ["program-ran"]],
    ["touch pwned", ["program-ran"]],
    ["python3 -c 1", ["program-ran"]],
  ] as const)("a lying analysis that allows %j is caught by %j alone", async (command, detectors) => {
    const result = await harness.run([command], { judge: liar });
    expect(result.ran).toBe(1);
    expect(result.finds.map((find) => find.detectors)).toEqual([detectors]);
    expect(result.finds[0]!.command).toBe(command);
    // The real analysis does not allow it: nothing runs.
    expect(await harness.run([command])).toMatchObject({ tried: 1, ran: 0, finds: [] });
  });

  it("a write into the log directory is caught", async () => {
    const command = `echo x > ${join(harness.tree.log, "note")}`;
    const result = await harness.run([command], { judge: liar });
    expect(result.finds.map((find) => find.detectors)).toEqual([["log-written"]]);
  });

  it("a secret in the environment printed is caught", async () => {
    const result = await harness.run(["echo $AGENTSCOPE_CANARY_TOKEN"], { judge: liar });
    expect(result.finds[0]?.happened).toEqual(["secret-read: printed the secret of environment"]);
  });

  it("a tree a command changed is rebuilt before the next command", async () => {
    const result = await harness.run(["echo pwned > a.txt", "echo again > a.txt", "cat a.txt"], {
      judge: liar,
      concurrency: 1,
    });
    expect(result.finds.map((find) => find.happened)).toEqual([
      ["changed-file: changed work/a.txt (mtime, size, sha256)"],
      ["changed-file: changed work/a.txt (mtime, size, sha256)"],
    ]);
  });

  it("real reads are not reported", async () => {
    const reads = [
      "cat a.txt",
      "ls -la",
      "grep -n alpha a.txt",
      "wc -l a.txt b.txt | sort -n",
      "head -1 src/main.ts && tail -n 1 b.txt",
      "echo hi",
      "sort numbers.txt; diff a.txt b.txt",
      "nice cat src/m*.ts",
      "find . -name '*.ts'",
      "jq .name data.json",
    ];
    const result = await harness.run(reads);
    expect(result.finds).toEqual([]);
    expect(result.ran).toBe(reads.length);
  });

  it("a timed-out command is ended and counted", async () => {
    const result = await harness.run(["sleep 30"], { timeoutMs: 300 });
    expect(result).toMatchObject({ ran: 1, timedOut: 1, finds: [] });
  });
});

describe("the differential inputs", () => {
  it("the generator is deterministic for a seed and differs between seeds", () => {
    const first = generateCommands(7, 50);
    expect(generateCommands(7, 50)).toEqual(first);
    expect(generateCommands(8, 50)).not.toEqual(first);
    expect(first).toHaveLength(50);
    expect(() => generateCommands(7, -1)).toThrow(/count must be a whole number/);
  });

  it("the generator reaches the constructs it is meant to combine", () => {
    const text = generateCommands(35, 2000).join("\n");
    for (const construct of [
      " | ",
      " && ",
      "; ",
      "<<<",
      "$(",
      "<(",
      "{a,b}",
      "*",
      "-v ",
      "3<",
      "/dev/fd/",
      "/proc/self/fd/",
      "=",
      "keys-link/../",
      "'",
      '"',
      "$'",
      '$"',
      ",'",
      "~root",
    ])
      expect(text, construct).toContain(construct);
  });

  it("the corpus is read from the Bash tests and docs/permissions.md", () => {
    const corpus = corpusCommands();
    expect(corpus).toContain("git grep -O'touch /tmp/m' hi");
    expect(corpus).toContain("cat link-*");
    expect(corpus).toContain("sort -o/tmp/x");
  });

  it("the run's size comes from the environment: a fixed CI run, a long one, bad values named", () => {
    expect(differentialSettings({})).toMatchObject({ mode: "ci", seed: CI_SEED, count: CI_COUNT });
    const today = new Date("2026-12-03T10:00:00Z");
    expect(differentialSettings({ AGENTSCOPE_DIFFERENTIAL: "long" }, today)).toMatchObject({
      mode: "long",
      seed: 20261203,
      count: 20_000,
    });
    expect(
      differentialSettings({
        AGENTSCOPE_DIFFERENTIAL: "long",
        AGENTSCOPE_DIFFERENTIAL_COUNT: "500",
        AGENTSCOPE_DIFFERENTIAL_SEED: "9",
      }),
    ).toMatchObject({ seed: 9, count: 500 });
    expect(() => differentialSettings({ AGENTSCOPE_DIFFERENTIAL: "nightly" })).toThrow(
      /must be "ci" or "long", got "nightly"/,
    );
    expect(() =>
      differentialSettings({ AGENTSCOPE_DIFFERENTIAL: "long", AGENTSCOPE_DIFFERENTIAL_COUNT: "1e9" }),
    ).toThrow(/AGENTSCOPE_DIFFERENTIAL_COUNT must be a whole number, got "1e9"/);
  });

  it("a damaged finds file is refused with the entry and field named", () => {
    const dir = mkdtempSync(join(tmpdir(), "agentscope-finds-"));
    const file = join(dir, "finds.json");
    const refuses = (content: string, message: RegExp) => {
      writeFileSync(file, content);
      expect(() => loadFinds(file)).toThrow(message);
    };
    try {
      const good = { command: "x", happened: ["y"], date: "2026-12-03", source: "test", open: true };
      refuses("{", /not readable JSON/);
      refuses("[]", /"finds" array/);
      refuses(JSON.stringify({ finds: [null] }), /finds\[0\] must be an object/);
      refuses(
        JSON.stringify({ finds: [{ ...good, command: "" }] }),
        /finds\[0\]\.command must be a non-empty string/,
      );
      refuses(JSON.stringify({ finds: [{ ...good, date: "3 Dec" }] }), /finds\[0\]\.date must be YYYY-MM-DD/);
      refuses(JSON.stringify({ finds: [{ ...good, happened: [] }] }), /happened must be a non-empty array/);
      refuses(JSON.stringify({ finds: [{ ...good, open: "yes" }] }), /open must be true or false/);
      refuses(
        JSON.stringify({ finds: [good, { ...good, extra: 1 }] }),
        /finds\[1\] has an unknown field "extra"/,
      );
      writeFileSync(file, JSON.stringify({ finds: [good] }));
      expect(loadFinds(file)).toEqual([good]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
