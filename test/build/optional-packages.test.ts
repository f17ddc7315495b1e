import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { importOptional } from "../../src/rag/readers/lazy-import.js";
import {
  importDriver,
  installCommand,
  isMissingOptionalPackage,
  OPTIONAL_PACKAGES,
} from "../../src/state/lazy-driver.js";

const root = join(import.meta.dirname, "../..");
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
  dependencies: Record<string, string>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};
const guide = readFileSync(join(root, "docs/getting-started.md"), "utf8");

/** Packages the sources import with import("name") (lazily), other than node: and relative ones. */
function lazilyImported(): Set<string> {
  const names = new Set<string>();
  const files = readdirSync(join(root, "src"), { recursive: true, encoding: "utf8" }).filter((f) =>
    f.endsWith(".ts"),
  );
  for (const file of files)
    for (const [, specifier] of readFileSync(join(root, "src", file), "utf8").matchAll(
      /\bimport\("([^".][^"]*)"\)/g,
    )) {
      if (specifier!.startsWith("node:")) continue;
      const parts = specifier!.split("/");
      names.add(specifier!.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!);
    }
  return names;
}

// esbuild builds the web console when running from the sources; the package ships it prebuilt.
const BUILD_TIME_ONLY = ["esbuild"];

describe("optional packages (OPTIONAL_PACKAGES, package.json, docs/getting-started.md)", () => {
  it("every package the code loads on first use is a dependency or a listed optional package", () => {
    const unlisted = [...lazilyImported()].filter(
      (name) =>
        !(name in pkg.dependencies) && !(name in OPTIONAL_PACKAGES) && !BUILD_TIME_ONLY.includes(name),
    );
    expect(unlisted).toEqual([]);
  });

  it("each one is an optional peer dependency, and nothing else is", () => {
    expect(Object.keys(pkg.peerDependencies).sort()).toEqual(Object.keys(OPTIONAL_PACKAGES).sort());
    for (const name of Object.keys(OPTIONAL_PACKAGES))
      expect(pkg.peerDependenciesMeta[name], name).toEqual({ optional: true });
  });

  it("the install command installs the line CI tests (the version in node_modules)", () => {
    for (const [name, { install }] of Object.entries(OPTIONAL_PACKAGES))
      for (const spec of install.split(" ")) {
        const at = spec.lastIndexOf("@");
        if (at <= 0) continue; // bare name: the latest release
        const [wanted, version] = [spec.slice(0, at), spec.slice(at + 1)];
        const installed = JSON.parse(
          readFileSync(join(root, "node_modules", wanted, "package.json"), "utf8"),
        );
        expect(`${installed.version}.`, `${name}: ${spec}`).toMatch(
          new RegExp(`^${version.replaceAll(".", "\\.")}\\.`),
        );
      }
  });

  it("the guide's table has a row per package with its install command", () => {
    for (const name of Object.keys(OPTIONAL_PACKAGES)) {
      const row = guide.split("\n").find((line) => line.startsWith(`| \`${name}\``));
      expect(row, name).toBeDefined();
      expect(row, name).toContain(`\`${installCommand(name)}\``);
    }
  });
});

describe("a missing optional package", () => {
  const missing = () => import(/* @vite-ignore */ ["sqlite-vec", "not-installed"].join("-"));

  it("is a MissingDriverError naming the store and the command (drivers)", async () => {
    const error = await importDriver(missing, "sqlite-vec-not-installed", "SqliteStateStore").catch((e) => e);
    expect(error.message).toBe(
      'SqliteStateStore needs the "sqlite-vec-not-installed" package, which is not installed: npm install sqlite-vec-not-installed',
    );
    expect(isMissingOptionalPackage(error)).toBe(true);
  });

  it("names the feature and the pinned command (readers and vector stores)", async () => {
    const lance = () =>
      Promise.reject(
        Object.assign(new Error("Cannot find package '@lancedb/lancedb'"), { code: "ERR_MODULE_NOT_FOUND" }),
      );
    const error = await importOptional(lance, "@lancedb/lancedb", "the LanceDB store").catch((e) => e);
    expect(error.message).toBe(
      'the LanceDB store needs the "@lancedb/lancedb" package: npm install @lancedb/lancedb@0.31 apache-arrow@18.1',
    );
    expect(isMissingOptionalPackage(error)).toBe(true);
  });

  it("is told apart from other failures (the CLI shows those as possible bugs)", async () => {
    expect(isMissingOptionalPackage(new Error("boom"))).toBe(false);
    const broken = () => Promise.reject(new TypeError("x is not a function"));
    const error = await importOptional(broken, "unpdf", "the PDF reader").catch((e) => e);
    expect(error).toBeInstanceOf(TypeError);
    expect(isMissingOptionalPackage(error)).toBe(false);
  });
});

describe("the published declarations' optional imports (scripts/optional-peer-types.mjs)", async () => {
  // @ts-expect-error: a plain .mjs script of the build, without declarations
  const { markOptionalImports } = (await import("../../scripts/optional-peer-types.mjs")) as {
    markOptionalImports(text: string, file: string, peers: string[]): string;
  };
  const peers = ["better-sqlite3", "pg"];

  it("marks a type-only import of an optional package so tsc takes it as any when it is missing", () => {
    expect(markOptionalImports('import type { Pool } from "pg";', "a.d.ts", peers)).toMatch(
      /^\/\/ @ts-ignore[^\n]*\nimport type \{ Pool \} from "pg";$/,
    );
  });

  it("leaves a string literal type that is a package's name alone", () => {
    const line = 'export type SqliteDriverName = "better-sqlite3" | "node:sqlite";';
    expect(markOptionalImports(line, "a.d.ts", peers)).toBe(line);
  });

  it.each(['import { Pool } from "pg";', 'export declare const pool: import("pg").Pool;'])(
    "refuses any other reference to an optional package: %s",
    (line) => {
      expect(() => markOptionalImports(line, "a.d.ts", peers)).toThrow(
        /a\.d\.ts:1: .*other than by `import type`/,
      );
    },
  );
});
