/**
 * A git config file without its secrets, for the sandbox to show in place of the real one: git
 * inside the sandbox still finds its remotes, branches and `url.*.insteadOf` rewrites, but no token.
 *
 * The real file is parsed as git does (sections, subsections, quoting, escapes, continuation lines)
 * and written back in a canonical form keeping only an allow-list of sections. Inside them, keys
 * whose names suggest a secret are dropped and every URL (in values and in subsection names such as
 * `[url "https://user:token@host/"]`) loses its credentials. Dropped outright: `credential.*`,
 * `http.*` (extra headers, cookies, proxies), `include`/`includeIf` (neutralised: an included file
 * is not read), `sendemail.*`, `imap.*`, `alias.*` and every section git itself does not define.
 * Lines that do not parse are dropped (git would refuse them anyway).
 */

/** Sections kept (lower case); everything else is dropped. */
const KEPT_SECTIONS = new Set([
  "am",
  "apply",
  "blame",
  "branch",
  "checkout",
  "clone",
  "color",
  "column",
  "commit",
  "core",
  "diff",
  "extensions",
  "feature",
  "fetch",
  "filter",
  "gc",
  "gpg",
  "grep",
  "i18n",
  "index",
  "init",
  "lfs",
  "log",
  "maintenance",
  "merge",
  "notes",
  "pack",
  "pull",
  "push",
  "rebase",
  "receive",
  "remote",
  "repack",
  "rerere",
  "sequence",
  "stash",
  "status",
  "submodule",
  "tag",
  "transfer",
  "url",
  "user",
  "worktree",
]);

/** Key names (in a kept section) that suggest a secret or a place one is sent. */
const SECRET_KEY = /token|passw|secret|auth|header|cookie|credential|proxy|api-?key|private/i;

/** `scheme://userinfo@`: the userinfo up to the last `@` of the authority (git stops at the first). */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*):\/\/([^/?#\s]*)@/gi;

export interface GitConfigEntry {
  section: string;
  subsection: string | undefined;
  key: string;
  /** undefined for a bare key (a boolean true). */
  value: string | undefined;
}

export interface SanitizedGitConfig {
  /** The config to show instead, in canonical form. */
  text: string;
  /** Something was dropped or rewritten (a line that did not parse counts): the copy differs. */
  changed: boolean;
  /** The file sets `core.repositoryformatversion`, as every config `git init` writes does. */
  repository: boolean;
}

const GIT_CONFIG_NAME = /^config(?:\.worktree)?$/i;
/** A ref file (`refs/heads/config` is a branch, not a config). */
const REF_CONTENT = /^(?:ref: [^\n]*|[0-9a-f]{40}|[0-9a-f]{64})\s*$/;

/** Whether a file name is one git reads its config from (`config`, `config.worktree`). */
export function isGitConfigName(name: string): boolean {
  return GIT_CONFIG_NAME.test(name);
}

/** Whether a path (segments below the workspace root) lies under a `.git` directory. */
export function isUnderGitDirectory(segments: readonly string[]): boolean {
  return segments.slice(0, -1).some((segment) => segment.toLowerCase() === ".git");
}

/**
 * What to show instead of the file at `segments` (below the workspace root, named `config` or
 * `config.worktree`) holding `text`: its sanitized copy when it is a git config with something to
 * drop — every such file under a `.git` directory, and any other that is a repository's config
 * (`core.repositoryformatversion`: a bare repository, a renamed `.git`) — or undefined.
 */
export function credentialFreeGitConfig(segments: readonly string[], text: string): string | undefined {
  if (REF_CONTENT.test(text)) return undefined;
  const clean = sanitizeGitConfig(text);
  return clean.changed && (isUnderGitDirectory(segments) || clean.repository) ? clean.text : undefined;
}

/** The sanitized copy of a git config file's text. */
export function sanitizeGitConfig(text: string): SanitizedGitConfig {
  const { entries, malformed } = parseGitConfig(text);
  const kept: GitConfigEntry[] = [];
  let changed = malformed;
  for (const entry of entries) {
    const clean = sanitizedEntry(entry);
    if (clean === undefined) changed = true;
    else {
      if (clean.subsection !== entry.subsection || clean.value !== entry.value) changed = true;
      kept.push(clean);
    }
  }
  const repository = entries.some(
    (entry) => entry.section === "core" && entry.key === "repositoryformatversion",
  );
  return { text: serializeGitConfig(kept), changed, repository };
}

/** A URL (or any text holding one) with the credentials of every `scheme://user:secret@` removed. */
export function withoutUrlCredentials(text: string): string {
  return text.replace(URL_USERINFO, (_match, scheme: string, userinfo: string) => {
    // ssh needs its user name (`ssh://git@host`); a password after it is dropped. Any other scheme
    // (https: a token is often the user name) loses the whole userinfo.
    if (!/ssh/i.test(scheme)) return `${scheme}://`;
    const user = userinfo.split(":")[0]!;
    return user === "" || user.includes("@") ? `${scheme}://` : `${scheme}://${user}@`;
  });
}

function sanitizedEntry(entry: GitConfigEntry): GitConfigEntry | undefined {
  if (!KEPT_SECTIONS.has(entry.section) || SECRET_KEY.test(entry.key)) return undefined;
  const subsection = entry.subsection === undefined ? undefined : withoutUrlCredentials(entry.subsection);
  const value = entry.value === undefined ? undefined : withoutUrlCredentials(entry.value);
  return { ...entry, subsection, value };
}

/**
 * The entries of a git config file, as git reads them (section and key names lower-cased, values
 * unquoted and unescaped). A line git would refuse is skipped and `malformed` set.
 */
export function parseGitConfig(text: string): { entries: GitConfigEntry[]; malformed: boolean } {
  const entries: GitConfigEntry[] = [];
  let malformed = false;
  let section: { name: string; subsection: string | undefined } | undefined;
  let rest = text.startsWith("\uFEFF") ? text.slice(1) : text;
  while (rest.length > 0) {
    const line = logicalLine(rest);
    rest = rest.slice(line.length);
    let body = line.replace(/^\s+/, "");
    if (body.startsWith("[")) {
      const header = /^\[([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\\n]|\\[^\n])*)")?\]/.exec(body);
      if (!header) {
        malformed = true;
        section = undefined;
        continue;
      }
      section = sectionOf(header[1]!, header[2]);
      body = body.slice(header[0].length).replace(/^\s+/, "");
    }
    if (body === "" || body.startsWith("#") || body.startsWith(";")) continue;
    const pair = section && keyValue(body);
    if (!section || !pair) {
      malformed = true;
      continue;
    }
    entries.push({ section: section.name, subsection: section.subsection, ...pair });
  }
  return { entries, malformed };
}

/** The text up to and including the next newline that is not escaped by a backslash. */
function logicalLine(text: string): string {
  const end = /(?<!\\)(?:\\\\)*\n/.exec(text);
  return end === null ? text : text.slice(0, end.index + end[0].length);
}

function sectionOf(name: string, quoted: string | undefined) {
  if (quoted !== undefined) return { name: name.toLowerCase(), subsection: quoted.replace(/\\(.)/g, "$1") };
  // The old `[section.subsection]` form: the subsection is lower-cased too.
  const dot = name.indexOf(".");
  if (dot < 0) return { name: name.toLowerCase(), subsection: undefined };
  return { name: name.slice(0, dot).toLowerCase(), subsection: name.slice(dot + 1).toLowerCase() };
}

/** `key = value` or a bare `key`, with the value decoded as git does; undefined when malformed. */
function keyValue(body: string): { key: string; value: string | undefined } | undefined {
  const name = /^([A-Za-z][A-Za-z0-9-]*)\s*/.exec(body);
  if (!name) return undefined;
  const after = body.slice(name[0].length);
  if (after === "" || after.startsWith("\n") || after.startsWith("#") || after.startsWith(";"))
    return { key: name[1]!.toLowerCase(), value: undefined };
  if (!after.startsWith("=")) return undefined;
  const value = decodeValue(after.slice(1));
  return value === undefined ? undefined : { key: name[1]!.toLowerCase(), value };
}

/** A value as git decodes it: quotes, `\n \t \b \" \\`, continuations, comments, trimmed spaces. */
function decodeValue(raw: string): string | undefined {
  let value = "";
  let pendingSpace = "";
  let quoted = false;
  for (let index = 0; index < raw.length; index++) {
    const char = raw[index]!;
    if (char === "\n") break;
    if (char === "\\") {
      const next = raw[++index];
      if (next === "\n") continue;
      const escaped = next === undefined ? undefined : ESCAPES[next];
      if (escaped === undefined) return undefined;
      value += pendingSpace + escaped;
      pendingSpace = "";
      continue;
    }
    if (!quoted && /\s/.test(char)) {
      if (value !== "") pendingSpace += " ";
      continue;
    }
    if (!quoted && (char === "#" || char === ";")) break;
    value += pendingSpace;
    pendingSpace = "";
    if (char === '"') quoted = !quoted;
    else value += char;
  }
  return quoted ? undefined : value;
}

const ESCAPES: Record<string, string> = { n: "\n", t: "\t", b: "\b", '"': '"', "\\": "\\" };

/** The entries as a config file git reads back to the same entries. */
export function serializeGitConfig(entries: readonly GitConfigEntry[]): string {
  const lines: string[] = [];
  let current: string | undefined;
  for (const entry of entries) {
    if (entry.subsection?.includes("\n")) continue;
    const header =
      entry.subsection === undefined
        ? `[${entry.section}]`
        : `[${entry.section} "${entry.subsection.replace(/["\\]/g, "\\$&")}"]`;
    if (header !== current) lines.push(header);
    current = header;
    lines.push(entry.value === undefined ? `\t${entry.key}` : `\t${entry.key} = ${quoted(entry.value)}`);
  }
  return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
}

function quoted(value: string): string {
  const escaped = value
    .replace(/["\\]/g, "\\$&")
    .replace(/\n/g, "\\n")
    .replace(/\t/g, "\\t")
    .replaceAll("\b", "\\b");
  return `"${escaped}"`;
}
