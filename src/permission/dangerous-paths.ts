import { sep } from "node:path";
import picomatch from "picomatch";
import {
  CREDENTIAL_DIRECTORIES,
  CREDENTIAL_FILES,
  credentialPathMatch,
  credentialPathReason,
  plainCredentialNames,
} from "./credential-paths.js";

/**
 * Directories whose contents run code or hold credentials: touching anything inside asks. The
 * credential ones come from credential-paths.ts, the list the workspace sandbox hides.
 */
export const DANGEROUS_DIRECTORIES: readonly string[] = [
  ".git",
  ".vscode",
  ".idea",
  // Other version control (hooks in .hg/hgrc) and git hook managers: their files run on commit.
  ".hg",
  ".svn",
  ".bzr",
  ".husky",
  ".githooks",
  // Tools that run commands their project files name when they open it: agent hooks (.claude),
  // dev containers' lifecycle commands, direnv's cache of the allowed .envrc.
  ".claude",
  ".devcontainer",
  ".direnv",
  ...plainCredentialNames(CREDENTIAL_DIRECTORIES),
];

/**
 * Files that run code at shell or tool start-up, or hold credentials (from credential-paths.ts).
 * `.env*` and the credential patterns (`*.pem`, `.config/gh`, ...) are matched separately.
 */
export const DANGEROUS_FILES: readonly string[] = [
  ".envrc",
  ".gitconfig",
  ".gitmodules",
  ".bashrc",
  ".bash_profile",
  ".bash_login",
  ".bash_logout",
  ".bash_aliases",
  ".zshrc",
  ".zshenv",
  ".zprofile",
  ".zlogin",
  ".zlogout",
  ".profile",
  ".kshrc",
  ".mkshrc",
  ".cshrc",
  ".tcshrc",
  ".login",
  ".logout",
  ".inputrc",
  ".hgrc",
  ".vimrc",
  ".gvimrc",
  ".exrc",
  ".nvimrc",
  ".pre-commit-config.yaml",
  ".lefthook.yml",
  ".lefthook.yaml",
  ".lefthook-local.yml",
  // mise runs a config's [env] _.source / [hooks] on cd; pnpm runs .pnpmfile.cjs (.yarnrc.yml's
  // yarnPath is covered as a credential file).
  ".mise.toml",
  ".mise.local.toml",
  ".pnpmfile.cjs",
  ...plainCredentialNames(CREDENTIAL_FILES),
];

/**
 * Code-running paths that are not one dot name: hook managers' files named without a dot (matched
 * by name, so a bare `*` is checked by expanding it, not by the pattern) and paths under `.config`
 * and `.cargo` (a path tail, as in credential-paths.ts).
 */
const CODE_PATHS = {
  files: [
    "lefthook.yml",
    "lefthook.yaml",
    "lefthook-local.yml",
    "mise.toml",
    "mise.local.toml",
    ".config/git/config",
    ".config/git/attributes",
    ".config/git/ignore",
    ".cargo/config",
    ".cargo/config.toml",
  ],
  directories: [
    ".config/fish",
    ".config/nvim",
    ".config/autostart",
    ".config/systemd",
    ".config/environment.d",
    ".config/git/hooks",
    ".config/mise",
  ],
};

const DANGEROUS_FILE_SET = new Set(DANGEROUS_FILES);
const DANGEROUS_DIRECTORY_SET = new Set(DANGEROUS_DIRECTORIES);

/**
 * A path segment that some segment of some tail entry (the code paths above, the credential lists)
 * matches, `*` being any run of characters: a path none of whose segments matches can match no
 * entry. Built from the lists, so it never falls behind them.
 */
const ENTRY_SEGMENT = new RegExp(
  `^(?:${[...CODE_PATHS.files, ...CODE_PATHS.directories, ...CREDENTIAL_FILES, ...CREDENTIAL_DIRECTORIES]
    .flatMap((entry) => entry.split("/"))
    .filter((part) => part !== "")
    .map((part) =>
      part
        .split("*")
        .map((piece) => piece.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
        .join("[^/]*"),
    )
    .join("|")})$`,
  "i",
);

/** Why an absolute path is dangerous to read or write, or undefined when it is not. */
export function dangerousPathReason(absolutePath: string): string | undefined {
  if (/^\/proc\/[^/]+\/(task\/[^/]+\/)?environ$/.test(absolutePath)) {
    return "a process's environment, which may hold secrets";
  }
  const segments = absolutePath.split(sep).filter((segment) => segment !== "");
  const last = segments.length - 1;
  for (const [index, segment] of segments.entries()) {
    const name = segment.toLowerCase();
    if (DANGEROUS_DIRECTORY_SET.has(name)) {
      return index === last ? `the ${segment} directory` : `inside the ${segment} directory`;
    }
    if (index !== last) continue;
    if (name === ".env" || name.startsWith(".env.")) return "an environment file that may hold secrets";
    if (DANGEROUS_FILE_SET.has(name)) return `${segment} runs code or holds credentials`;
  }
  // Most paths have no segment any entry could match: skip the entry-by-entry matching for them.
  if (!segments.some((segment) => ENTRY_SEGMENT.test(segment))) return undefined;
  const code = credentialPathMatch(segments, CODE_PATHS);
  if (code) return `${code.entry} runs code when a tool starts`;
  return credentialPathReason(segments);
}

/** Names a glob segment is tested against: every dangerous directory and file, and `.env` files. */
const DANGEROUS_NAMES: readonly string[] = [
  ...DANGEROUS_DIRECTORIES,
  ...DANGEROUS_FILES,
  ".env",
  ".env.local",
  ".env.production",
];

/**
 * Why a glob pattern could reach a dangerous path, or undefined when none of its segments can match
 * a dangerous name. Leading dots are matched the way the shell does (`*` skips `.env`, `.e*` does
 * not), and `**` is treated as matching any depth.
 */
export function dangerousGlobReason(pattern: string): string | undefined {
  const literal = dangerousPathReason(pattern.replace(/\\(.)/g, "$1"));
  if (literal) return literal;
  for (const segment of pattern.split("/")) {
    if (!/[*?[{]/.test(segment)) continue;
    const test = picomatch(segment, { dot: false, nocase: true });
    const name = DANGEROUS_NAMES.find((candidate) => test(candidate));
    if (name) return `the pattern ${segment} can match ${name}`;
  }
  return undefined;
}
