// Lets the published declarations compile where the optional peer dependencies are not installed.
//
// A few public options take a driver's own object (`pool?: pg.Pool`, `client?: Redis`, `database?:
// BetterSqlite3.Database`), so tsc writes `import type ... from "pg"` into the .d.ts. In an app that
// never installed pg, `tsc` without skipLibCheck then fails inside agentscope. Each such import gets a
// `// @ts-ignore` line: with the package (and its types) installed the option has the driver's type,
// without it the type is `any` and nothing fails. Any other kind of reference to an optional package
// in a declaration (a value import, an inline `import("pg")` type) fails the build, since it could
// not be silenced this way.
//
// Usage: node scripts/optional-peer-types.mjs [dist]
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The optional peer dependencies of package.json. */
export function optionalPeers(pkg) {
  return Object.entries(pkg.peerDependenciesMeta ?? {})
    .filter(([, meta]) => meta.optional)
    .map(([name]) => name);
}

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/** The declaration text with each type-only import of an optional package marked; throws on other references. */
export function markOptionalImports(text, file, peers) {
  const names = peers.map(escapeRegExp).join("|");
  const typeImport = new RegExp(`^import type [^;]+ from "(?:${names})(?:/[^"]*)?";$`);
  // A module reference (from, import(), require(), declare module), not a string literal type that
  // happens to be a package's name (e.g. `SqliteDriverName = "better-sqlite3" | "node:sqlite"`).
  const anyReference = new RegExp(
    `(?:\\bfrom\\s*|\\bimport\\(\\s*|\\brequire\\(\\s*|\\bmodule\\s+)["'](?:${names})(?:/[^"']*)?["']`,
  );
  const lines = text.split("\n");
  const out = [];
  lines.forEach((line, i) => {
    if (typeImport.test(line)) {
      if (!lines[i - 1]?.startsWith("// @ts-ignore"))
        out.push("// @ts-ignore: an optional peer dependency; its types are `any` when it is not installed");
    } else if (
      anyReference.test(line) &&
      !line.trimStart().startsWith("*") &&
      !line.trimStart().startsWith("//")
    )
      throw new Error(
        `${file}:${i + 1}: a declaration refers to an optional package other than by \`import type\`: ${line.trim()}`,
      );
    out.push(line);
  });
  return out.join("\n");
}

/** Marks every .d.ts under `dir`; returns how many files changed. */
export function markDeclarations(dir, peers) {
  let changed = 0;
  for (const file of readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((f) =>
    f.endsWith(".d.ts"),
  )) {
    const path = join(dir, file);
    const text = readFileSync(path, "utf8");
    const marked = markOptionalImports(text, path, peers);
    if (marked !== text) {
      writeFileSync(path, marked);
      changed += 1;
    }
  }
  return changed;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const dir = resolve(process.argv[2] ?? join(root, "dist"));
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const changed = markDeclarations(dir, optionalPeers(pkg));
  console.log(`optional-peer-types: marked the optional imports of ${changed} declaration files`);
}
