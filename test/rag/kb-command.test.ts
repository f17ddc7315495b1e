import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kbCommand } from "../../src/app/cli/kb-command.js";
import { textSink } from "../support/text-sink.js";

describe("agentscope kb", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "agentscope-kb-cli-"));
    await writeFile(
      join(dir, "reactor.md"),
      "# Reactor\nThe aurora reactor runs at forty kelvin.\n# Garden\nTomatoes need sun.",
    );
    await writeFile(join(dir, "codes.csv"), "code,meaning\nZX-81,coolant valve stuck\n");
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("adds files with a progress bar, then searches, lists and removes them", async () => {
    const db = join(dir, "vectors.db");
    const out = textSink();
    const err = textSink();
    await kbCommand(["add", "docs", join(dir, "reactor.md"), join(dir, "codes.csv"), "--db", db], {
      out,
      err,
    });
    expect(out.text).toContain("reactor.md: 2 chunks");
    expect(out.text).toContain("codes.csv: 1 chunks");
    expect(err.text).toMatch(/\r\[#{20}\] \d+\/\d+ done/);

    const found = textSink();
    await kbCommand(["search", "docs", "aurora", "reactor", "kelvin", "--top-k", "1", "--db", db], {
      out: found,
    });
    expect(found.text).toMatch(
      /^\[1\] reactor\.md > Reactor {2}\(score [\d.]+\)\n# Reactor\nThe aurora reactor runs at forty kelvin\./,
    );

    const code = textSink();
    await kbCommand(["search", "docs", "ZX-81", "--mode", "keyword", "--top-k", "1", "--db", db], {
      out: code,
    });
    expect(code.text).toContain("code: ZX-81 | meaning: coolant valve stuck");

    const listed = textSink();
    await kbCommand(["list", "docs", "--db", db], { out: listed });
    expect(listed.text.trim().split("\n")).toHaveLength(2);

    await kbCommand(["remove", "docs", "codes.csv", "--db", db], { out: textSink() });
    const after = textSink();
    await kbCommand(["list", "docs", "--db", db], { out: after });
    expect(after.text).not.toContain("codes.csv");
  });

  it("explains bad arguments", async () => {
    await expect(kbCommand(["add", "docs", "--db", join(dir, "x.db")], { out: textSink() })).rejects.toThrow(
      /at least one file/,
    );
    await expect(
      kbCommand(["search", "docs", "q", "--mode", "fuzzy", "--db", join(dir, "x.db")], { out: textSink() }),
    ).rejects.toThrow(/--mode/);
    await expect(
      kbCommand(["add", "docs", "a.md", "--embedding", "openai", "--db", join(dir, "x.db")], {
        out: textSink(),
      }),
    ).rejects.toThrow(
      /--embedding: model "openai" must be written provider:model.*use hash\[:dims\] or provider:model/,
    );
    const help = textSink();
    await kbCommand([], { out: help });
    expect(help.text).toContain("agentscope kb add");
  });
});
