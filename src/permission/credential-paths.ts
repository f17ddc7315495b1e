/**
 * The one list of credential paths: the permission engine asks before a tool touches one
 * (dangerous-paths.ts) and a workspace hides them from commands and file tools alike (the
 * sandbox's hidden paths, the file view). Both read these lists through `credentialPathMatch`.
 *
 * An entry without `/` is a base name (`*` is a wildcard) matched at any depth; an entry with `/` is
 * a path tail (`.config/gcloud` matches `<anything>/.config/gcloud`). Names compare case-insensitively.
 */

/** Directories that hold credentials: everything inside them is a secret. */
export const CREDENTIAL_DIRECTORIES: readonly string[] = [
  ".ssh",
  ".gnupg",
  ".aws",
  ".azure",
  ".kube",
  ".docker",
  ".password-store",
  ".config/gcloud",
  ".config/gh",
  ".config/hub",
];

/** Files that hold credentials or keys (and shell histories, which hold typed secrets). */
export const CREDENTIAL_FILES: readonly string[] = [
  ".env",
  ".env.*",
  ".git-credentials",
  ".config/git/credentials",
  ".npmrc",
  ".yarnrc",
  ".yarnrc.yml",
  ".pypirc",
  ".config/pip/pip.conf",
  ".pip/pip.conf",
  ".netrc",
  "_netrc",
  ".pgpass",
  ".my.cnf",
  ".cargo/credentials",
  ".cargo/credentials.toml",
  ".vault-token",
  ".terraformrc",
  // terraform login's API tokens, and state files (which hold every secret a plan touched).
  ".terraform.d/credentials.tfrc.json",
  "*.tfstate",
  "*.tfstate.backup",
  ".htpasswd",
  "credentials",
  "credentials.json",
  "credentials.toml",
  "application_default_credentials.json",
  "*.pem",
  "*.key",
  "*.p12",
  "*.pfx",
  "id_rsa*",
  "id_dsa*",
  "id_ecdsa*",
  "id_ed25519*",
  ".bash_history",
  ".zsh_history",
  ".sh_history",
  ".history",
  ".python_history",
  ".node_repl_history",
  ".psql_history",
  ".mysql_history",
  ".sqlite_history",
  ".lesshst",
];

/** Lists to match against: the defaults above, or a sandbox policy's own. */
export interface CredentialLists {
  files: readonly string[];
  directories: readonly string[];
}

export const DEFAULT_CREDENTIAL_LISTS: CredentialLists = {
  files: CREDENTIAL_FILES,
  directories: CREDENTIAL_DIRECTORIES,
};

const compiled = new Map<string, (segments: readonly string[]) => boolean>();

/** `*` matches any run of characters within one segment; everything else is literal. */
function segmentPattern(glob: string): RegExp {
  const escaped = glob.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${escaped.join("[^/]*")}$`, "i");
}

/** A test of a path's trailing segments against one entry. */
function entryMatcher(entry: string): (segments: readonly string[]) => boolean {
  let match = compiled.get(entry);
  if (match) return match;
  const parts = entry.split("/").filter((part) => part !== "");
  if (parts.length === 0) throw new RangeError(`credential path entry "${entry}" is empty`);
  const patterns = parts.map(segmentPattern);
  match = (segments) => {
    if (segments.length < patterns.length) return false;
    const tail = segments.slice(segments.length - patterns.length);
    return patterns.every((pattern, index) => pattern.test(tail[index]!));
  };
  if (compiled.size > 1000) compiled.clear();
  compiled.set(entry, match);
  return match;
}

/** The first of `entries` that the path's trailing segments match, or undefined (no ancestor is tried). */
export function matchingCredentialEntry(
  segments: readonly string[],
  entries: readonly string[],
): string | undefined {
  return entries.find((entry) => entryMatcher(entry)(segments));
}

/** The segments of a path (`/` or `\` separated), without empty ones and `.`. */
export function pathSegments(path: string): string[] {
  return path.split(/[/\\]/).filter((segment) => segment !== "" && segment !== ".");
}

/**
 * Which credential entry a path is or lies inside, or undefined. `path` may be absolute or relative;
 * every ancestor is tried as a directory, the whole path as a file or a directory.
 */
export function credentialPathMatch(
  path: string | readonly string[],
  lists: CredentialLists = DEFAULT_CREDENTIAL_LISTS,
): { entry: string; kind: "file" | "directory"; inside: boolean } | undefined {
  const segments = typeof path === "string" ? pathSegments(path) : path;
  for (let end = 1; end <= segments.length; end++) {
    const prefix = segments.slice(0, end);
    const inside = end < segments.length;
    const directory = matchingCredentialEntry(prefix, lists.directories);
    if (directory !== undefined) return { entry: directory, kind: "directory", inside };
  }
  if (segments.length === 0) return undefined;
  const file = matchingCredentialEntry(segments, lists.files);
  return file === undefined ? undefined : { entry: file, kind: "file", inside: false };
}

/** Why a path is a credential (a sentence for an ask or a refusal), or undefined when it is not. */
export function credentialPathReason(
  path: string | readonly string[],
  lists: CredentialLists = DEFAULT_CREDENTIAL_LISTS,
): string | undefined {
  const match = credentialPathMatch(path, lists);
  if (!match) return undefined;
  if (match.kind === "directory")
    return match.inside
      ? `inside ${match.entry}, which holds credentials`
      : `${match.entry} holds credentials`;
  return `${match.entry} files hold credentials`;
}

/**
 * The entries that are one literal dot name (`.npmrc`, not `*.pem`, `.config/gh` or `credentials`),
 * lower-cased: for the engine's name sets, whose glob checks assume names a bare `*` cannot match.
 * The other entries reach the engine through `credentialPathReason`.
 */
export function plainCredentialNames(entries: readonly string[]): string[] {
  return entries.filter((entry) => /^\.[^/*]+$/.test(entry)).map((entry) => entry.toLowerCase());
}
