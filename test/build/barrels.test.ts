import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs build script without type declarations
import { apiReports } from "../../scripts/api-report.mjs";

interface Report {
  specifier: string;
  names: string[];
}

const root = join(import.meta.dirname, "..", "..");

/**
 * The most names `agentscope` (src/index.ts) may export. The root is what a user writing an agent
 * needs; a helper belongs to its layer's subpath. Raising the budget is a decision: say in the commit
 * why the name must be at the root, and the API report shows it.
 */
const ROOT_BUDGET = 160;
/** What every example starts with, so a cut to fit the budget cannot drop it. */
const ROOT_STAPLES = ["Agent", "userMsg", "functionTool", "Toolkit", "applyEvent", "EVENT_TYPES", "Session"];

const sourceFiles = (dir: string): string[] =>
  readdirSync(join(root, dir), { recursive: true, encoding: "utf8" })
    .filter((file) => /\.tsx?$/.test(file) && !file.endsWith(".d.ts"))
    .map((file) => join(dir, file));

/** `export * from`, `export type * from` and `export * as ns from` in one file, as "file: statement". */
function wholeFileExports(file: string): string[] {
  const text = readFileSync(join(root, file), "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  return source.statements
    .filter(
      (statement) =>
        ts.isExportDeclaration(statement) &&
        statement.moduleSpecifier !== undefined &&
        (statement.exportClause === undefined || ts.isNamespaceExport(statement.exportClause)),
    )
    .map((statement) => `${file}: ${statement.getText(source)}`);
}

/** Every `import { a, type B } from "agentscope…"` in a TypeScript file or a markdown code block. */
function publicImports(file: string): { specifier: string; name: string }[] {
  const text = readFileSync(join(root, file), "utf8");
  const found: { specifier: string; name: string }[] = [];
  for (const match of text.matchAll(
    /import\s+(?:type\s+)?\{([^}]*)\}\s*from\s*["'](agentscope[^"']*)["']/g,
  )) {
    for (const part of match[1]!.split(",")) {
      const name = part
        .trim()
        .replace(/^type\s+/, "")
        .split(/\s+as\s+/)[0]!
        .trim();
      if (name !== "") found.push({ specifier: match[2]!, name });
    }
  }
  return found;
}

const reports: Report[] = apiReports();
const bySpecifier = new Map(reports.map((report) => [report.specifier, new Set(report.names)]));
const rootNames = reports.find((report) => report.specifier === "agentscope")!.names;

describe("the package's barrels", () => {
  it("list their exports by name: no file in src/ re-exports a whole module", () => {
    expect(sourceFiles("src").flatMap(wholeFileExports)).toEqual([]);
  });

  it(`keep the root within its budget (${ROOT_BUDGET} names; it exports ${rootNames.length})`, () => {
    expect(rootNames.length).toBeLessThanOrEqual(ROOT_BUDGET);
    for (const name of ROOT_STAPLES) expect(rootNames).toContain(name);
  });

  it("export from the root only names a layer's subpath exports too, so each has a home", () => {
    const layers = reports.filter((report) => report.specifier !== "agentscope");
    const homeless = rootNames.filter((name) => !layers.some((report) => report.names.includes(name)));
    expect(homeless).toEqual([]);
  });

  it("export every name the README, docs/ and examples/ import, from the entry they import it from", () => {
    const files = [
      "README.md",
      ...readdirSync(join(root, "docs"))
        .filter((f) => f.endsWith(".md"))
        .map((f) => `docs/${f}`),
      ...sourceFiles("examples"),
      "src/app/cli/init-templates.ts",
    ];
    const imports = files.flatMap((file) => publicImports(file).map((use) => ({ file, ...use })));
    expect(imports.length).toBeGreaterThan(50);
    const missing = imports.filter(({ specifier, name }) => !bySpecifier.get(specifier)?.has(name));
    expect(missing).toEqual([]);
  });
});
