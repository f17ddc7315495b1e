import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findRipgrep } from "../../../src/tool/builtin/grep-search.js";
import { editTool, globTool, grepTool, readTool, writeTool } from "../../../src/tool/builtin/index.js";
import { run, tempDir, toolContext } from "./helpers.js";

const { dir, cleanup } = tempDir();
afterAll(cleanup);
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

describe("Read", () => {
  writeFileSync(join(dir, "lines.txt"), Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n"));

  it("returns numbered lines", async () => {
    const output = await run(readTool(), { path: "lines.txt" }, toolContext(dir));
    expect(String(output).split("\n")[0]).toBe("     1\tline 1");
    expect(String(output).split("\n")).toHaveLength(10);
  });

  it("reads a line range and says how to read on", async () => {
    const output = String(
      await run(readTool(), { path: "lines.txt", offset: 3, limit: 2 }, toolContext(dir)),
    );
    expect(output).toBe("     3\tline 3\n     4\tline 4\n[lines 3-4 of 10; use offset to read on]");
  });

  it("fails clearly for a missing file, a directory and an offset past the end", async () => {
    await expect(run(readTool(), { path: "nope.txt" }, toolContext(dir))).rejects.toThrow(
      "nope.txt does not exist",
    );
    await expect(run(readTool(), { path: "." }, toolContext(dir))).rejects.toThrow(/is a directory/);
    await expect(run(readTool(), { path: "lines.txt", offset: 50 }, toolContext(dir))).rejects.toThrow(
      /past the end/,
    );
  });

  it("returns an image as a data block", async () => {
    writeFileSync(join(dir, "dot.png"), PNG);
    const output = (await run(readTool(), { path: "dot.png" }, toolContext(dir))) as Array<
      Record<string, unknown>
    >;
    expect(output[0]).toMatchObject({ type: "data", source: { type: "base64", mediaType: "image/png" } });
    expect((output[0]!.source as { data: string }).data).toBe(PNG.toString("base64"));
  });
});

describe("Write and Edit", () => {
  it("Write creates missing directories", async () => {
    const output = await run(writeTool(), { path: "deep/er/new.txt", content: "hello" }, toolContext(dir));
    expect(readFileSync(join(dir, "deep/er/new.txt"), "utf8")).toBe("hello");
    expect(output).toMatch(/wrote deep\/er\/new.txt/);
  });

  it("Edit replaces a unique string in a file the session read", async () => {
    writeFileSync(join(dir, "e1.txt"), "alpha beta gamma");
    const ctx = toolContext(dir);
    await run(readTool(), { path: "e1.txt" }, ctx);
    await run(editTool(), { path: "e1.txt", oldString: "beta", newString: "BETA" }, ctx);
    await run(editTool(), { path: "e1.txt", oldString: "gamma", newString: "GAMMA" }, ctx);
    expect(readFileSync(join(dir, "e1.txt"), "utf8")).toBe("alpha BETA GAMMA");
  });

  it("Edit refuses a file never read in this session", async () => {
    writeFileSync(join(dir, "e2.txt"), "x");
    await expect(
      run(editTool(), { path: "e2.txt", oldString: "x", newString: "y" }, toolContext(dir)),
    ).rejects.toThrow(/has not been read/);
  });

  it("Edit refuses a file changed since it was read", async () => {
    writeFileSync(join(dir, "e3.txt"), "one");
    const ctx = toolContext(dir);
    await run(readTool(), { path: "e3.txt" }, ctx);
    writeFileSync(join(dir, "e3.txt"), "one two");
    await expect(run(editTool(), { path: "e3.txt", oldString: "one", newString: "1" }, ctx)).rejects.toThrow(
      /changed since it was last read/,
    );
    expect(readFileSync(join(dir, "e3.txt"), "utf8")).toBe("one two");
  });

  it("Edit keeps its read cache as plain JSON in the tool state", async () => {
    writeFileSync(join(dir, "e4.txt"), "a");
    const ctx = toolContext(dir);
    await run(readTool(), { path: "e4.txt" }, ctx);
    const restored = toolContext(dir, { state: JSON.parse(JSON.stringify(ctx.state)) });
    await run(editTool(), { path: "e4.txt", oldString: "a", newString: "b" }, restored);
    expect(readFileSync(join(dir, "e4.txt"), "utf8")).toBe("b");
  });

  it("Edit fails clearly when the string is missing or not unique, unless replaceAll", async () => {
    writeFileSync(join(dir, "e5.txt"), "x x x");
    const ctx = toolContext(dir);
    await run(readTool(), { path: "e5.txt" }, ctx);
    await expect(run(editTool(), { path: "e5.txt", oldString: "y", newString: "z" }, ctx)).rejects.toThrow(
      /not found/,
    );
    await expect(run(editTool(), { path: "e5.txt", oldString: "x", newString: "z" }, ctx)).rejects.toThrow(
      /occurs 3 times/,
    );
    expect(
      await run(editTool(), { path: "e5.txt", oldString: "x", newString: "$&z", replaceAll: true }, ctx),
    ).toMatch(/3 occurrences/);
    expect(readFileSync(join(dir, "e5.txt"), "utf8")).toBe("$&z $&z $&z");
  });
});

describe("Glob and Grep", () => {
  const root = join(dir, "search");
  mkdirSync(join(root, "src", "nested"), { recursive: true });
  mkdirSync(join(root, "node_modules", "pkg"), { recursive: true });
  writeFileSync(join(root, "src", "a.ts"), "const needle = 1;\nconst hay = 2;\n");
  writeFileSync(join(root, "src", "nested", "b.ts"), "// Needle here\nneedle again\n");
  writeFileSync(join(root, "src", "c.md"), "no match\n");
  writeFileSync(join(root, "node_modules", "pkg", "index.ts"), "needle\n");

  it("Glob lists matching files, sorted, skipping node_modules", async () => {
    const output = await run(globTool(), { pattern: "**/*.ts", path: "search" }, toolContext(dir));
    expect(output).toBe("src/a.ts\nsrc/nested/b.ts");
    expect(await run(globTool(), { pattern: "*.nope", path: "search" }, toolContext(dir))).toMatch(
      /no files match/,
    );
  });

  const engines = [
    ["JavaScript", false],
    ["ripgrep", true],
  ] as const;
  for (const [engine, useRipgrep] of engines) {
    describe.skipIf(useRipgrep && !findRipgrep())(`Grep (${engine})`, () => {
      const grep = grepTool({ useRipgrep });
      it("lists matching files by default", async () => {
        expect(await run(grep, { pattern: "needle", path: "search" }, toolContext(dir))).toBe(
          "src/a.ts\nsrc/nested/b.ts",
        );
      });
      it("shows matching lines with numbers, and honours ignoreCase and glob", async () => {
        const output = await run(
          grep,
          { pattern: "needle", path: "search", outputMode: "content", ignoreCase: true, glob: "**/nested/*" },
          toolContext(dir),
        );
        expect(output).toBe("src/nested/b.ts:1:// Needle here\nsrc/nested/b.ts:2:needle again");
      });
      it("counts matches per file", async () => {
        const output = await run(
          grep,
          { pattern: "needle", path: "search", outputMode: "count" },
          toolContext(dir),
        );
        expect(output).toBe("src/a.ts:1\nsrc/nested/b.ts:1");
      });
    });
  }

  it("Grep reports an invalid pattern clearly", async () => {
    await expect(
      run(grepTool({ useRipgrep: false }), { pattern: "(", path: "search" }, toolContext(dir)),
    ).rejects.toThrow(/invalid regular expression/);
  });
});

describe("builtinTools", () => {
  it("suggests a directory rule for file tools and matches it as a glob", async () => {
    const read = readTool();
    expect(read.suggestRules?.({ path: "src/deep/a.ts" })).toEqual(["Read(src/deep/**)"]);
    expect(read.suggestRules?.({ path: "/tmp/x/y.txt" })).toEqual(["Read(/tmp/x/**)"]);
    const context = { mode: "default" as const, rules: [], workingDirectories: [dir] };
    expect(read.matchRule?.("src/**", { path: "src/deep/a.ts" }, { behavior: "allow", context })).toBe(true);
  });
});
