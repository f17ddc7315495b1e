import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
// @ts-expect-error: a plain .mjs build script without type declarations
import { bundleEntries, consoleBundleDirs } from "../../scripts/bundle-entries.mjs";

const root = join(import.meta.dirname, "..", "..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  exports: Record<string, { import: string }>;
};
// Inside the package's node_modules, so the external dependencies resolve as in an install.
const cache = join(root, "node_modules", ".cache");
let outdir: string;
let outputs: string[];

const entry = (subpath: string) =>
  import(pathToFileURL(join(outdir, pkg.exports[subpath]!.import.replace("./dist/", ""))).href);

beforeAll(async () => {
  mkdirSync(cache, { recursive: true }); // a fresh clone has no cache folder yet
  outdir = mkdtempSync(join(cache, "agentscope-bundle-test-"));
  outputs = await bundleEntries(outdir);
}, 120_000);

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

describe("bundled entry points (scripts/bundle-entries.mjs)", () => {
  it("writes one module per package.json export", () => {
    for (const target of Object.values(pkg.exports)) {
      const file = join(outdir, target.import.replace("./dist/", ""));
      expect(outputs.map((output) => join(root, output))).toContain(file);
    }
  });

  it("shares one copy of each class between entries", async () => {
    const [core, message, agent] = await Promise.all([entry("."), entry("./message"), entry("./agent")]);
    expect(core.MsgSchema).toBeDefined();
    expect(core.MsgSchema).toBe(message.MsgSchema);
    expect(core.Agent).toBe(agent.Agent);
  });

  it("keeps zod off the import path: the root entry imports no zod module at run time", () => {
    const staticImports = (file: string): string[] =>
      [...readFileSync(file, "utf8").matchAll(/^import .*? from "([^"]+)";$/gm)].map((m) => m[1]!);
    const seen = new Set<string>();
    const pending = [join(outdir, "index.js")];
    const bare: string[] = [];
    while (pending.length > 0) {
      const file = pending.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      for (const specifier of staticImports(file)) {
        if (specifier.startsWith(".")) pending.push(join(file, "..", specifier));
        else bare.push(specifier);
      }
    }
    expect(bare.filter((specifier) => specifier.startsWith("zod"))).toEqual([]);
    expect(seen.size).toBeLessThan(30);
  });

  it("accepts the user's own zod schemas in the bundled copy (descriptions and validation)", async () => {
    const { functionTool } = await entry(".");
    const tool = functionTool({
      name: "get_weather",
      description: "Weather for a city",
      input: z.object({ city: z.string().describe("the city") }),
      execute: async ({ city }: { city: string }) => city,
    });
    expect(tool.inputSchema.properties.city).toMatchObject({ type: "string", description: "the city" });
    expect(tool.parse({ city: "Paris" })).toEqual({ city: "Paris" });
    expect(() => tool.parse({ city: 1 })).toThrow(/city/);
  });

  it("finds where the web console bundle must go (next to the chunk that serves it)", () => {
    const dirs = consoleBundleDirs(outputs);
    expect(dirs).toHaveLength(1);
    expect(dirs[0]!.startsWith(outdir)).toBe(true);
  });
});
