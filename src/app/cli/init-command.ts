import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { CliError } from "./cli-error.js";
import { type ProjectVariables, projectFiles } from "./init-templates.js";

interface AgentscopeManifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/** agentscope's own package.json: the nearest one named agentscope above this module (src/ or dist/). */
function ownManifest(): AgentscopeManifest {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = join(dir, "package.json");
    if (existsSync(file)) {
      const manifest = JSON.parse(readFileSync(file, "utf8")) as AgentscopeManifest;
      if (manifest.name === "agentscope") return manifest;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error("agentscope init: cannot find agentscope's own package.json");
    dir = parent;
  }
}

/** A folder name as an npm package name: lower case, runs of other characters become "-". */
export function packageNameFor(dir: string): string {
  const name = basename(resolve(dir))
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[._-]+|-+$/g, "");
  return name || "my-agent";
}

export function projectVariables(dir: string): ProjectVariables {
  const own = ownManifest();
  const range = (name: string, fallback: string) =>
    own.dependencies?.[name] ?? own.devDependencies?.[name] ?? fallback;
  return {
    name: packageNameFor(dir),
    versions: {
      agentscope: `^${own.version}`,
      zod: range("zod", "^4.0.0"),
      tsx: range("tsx", "^4.0.0"),
      typescript: range("typescript", "^5.0.0"),
      "@types/node": "^20.12.0",
    },
  };
}

export interface InitResult {
  dir: string;
  files: string[];
}

/**
 * Writes a small agent project into `dir` (created if missing): an agents config in TypeScript, a
 * custom tool, a model that runs offline until a provider key is set, a test on the scripted model,
 * `.env.example`, tsconfig and package.json. Refuses to overwrite a file that exists.
 */
export function initProject(dir: string): InitResult {
  const root = resolve(dir);
  const files = projectFiles(projectVariables(root));
  const existing = Object.keys(files).filter((file) => existsSync(join(root, file)));
  if (existing.length > 0)
    throw new CliError(
      `init: ${relative(process.cwd(), root) || "."} already has ${existing.join(", ")}`,
      "pick a new folder (agentscope init my-agent), or move those files away",
    );
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), text);
  }
  return { dir: root, files: Object.keys(files) };
}

/** `agentscope init [dir]`: writes the project and says what to run next. */
export function initCommand(dir: string, out: NodeJS.WritableStream): InitResult {
  const wasEmpty = !existsSync(dir) || readdirSync(dir).length === 0;
  const result = initProject(dir);
  const shown = relative(process.cwd(), result.dir) || ".";
  out.write(
    `created ${shown}${wasEmpty ? "" : " (beside the files already there)"}: ${result.files.join(", ")}\n\n`,
  );
  out.write("next:\n");
  if (shown !== ".") out.write(`  cd ${shown}\n`);
  out.write(
    [
      "  npm install",
      "  npm test              # the agent and its tool on a scripted model, offline",
      "  npx agentscope chat   # talk to it here (offline until a key is set: cp .env.example .env)",
      "  npx agentscope serve  # the service and web console at http://127.0.0.1:8787",
      "",
    ].join("\n"),
  );
  return result;
}
