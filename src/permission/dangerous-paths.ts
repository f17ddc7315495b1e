import { sep } from "node:path";

/** Directories whose contents run code or hold credentials: touching anything inside asks. */
export const DANGEROUS_DIRECTORIES: readonly string[] = [
  ".git",
  ".ssh",
  ".aws",
  ".gnupg",
  ".kube",
  ".docker",
  ".azure",
  ".vscode",
  ".idea",
];

/** Files that run code at shell or tool start-up, or hold credentials. `.env*` is matched separately. */
export const DANGEROUS_FILES: readonly string[] = [
  ".envrc",
  ".gitconfig",
  ".gitmodules",
  ".git-credentials",
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
  ".cshrc",
  ".tcshrc",
  ".npmrc",
  ".yarnrc",
  ".yarnrc.yml",
  ".pypirc",
  ".netrc",
  ".pgpass",
  ".my.cnf",
];

const DANGEROUS_FILE_SET = new Set(DANGEROUS_FILES);
const DANGEROUS_DIRECTORY_SET = new Set(DANGEROUS_DIRECTORIES);

/** Why an absolute path is dangerous to read or write, or undefined when it is not. */
export function dangerousPathReason(absolutePath: string): string | undefined {
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
  return undefined;
}
