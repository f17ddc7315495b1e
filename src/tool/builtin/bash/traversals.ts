/**
 * Recursive readers print files they were never told the names of: `grep -r TOKEN .` prints `.env`
 * and `.git/config`, `grep -R` and `rg -L` follow a symlink into `~/.ssh`. The analysis records each
 * such walk; the permission check walks the same tree at decision time and checks what it finds.
 */
export interface Traversal {
  /** The program, for the reason shown to a person. */
  program: string;
  /** The directories (or files) it walks, relative to where the script starts when relative. */
  roots: string[];
  /** It reads the targets of symlinks it meets while walking (`grep -R`, `rg -L`, `diff -r`). */
  followsLinks: boolean;
  /**
   * It never enters hidden names unless an ignore file whitelists them (ripgrep's default): the walk
   * skips them, and asks if any ignore file it meets whitelists something (`!.env`).
   */
  skipsHidden: boolean;
  /** It never reads the repository's own `.git` directory (`git grep`). */
  skipsGitDirectory: boolean;
}

/** Options after which ripgrep reads hidden or ignored files, or takes whitelists from elsewhere. */
const RG_UNHIDES = [
  "--hidden",
  "-.",
  "-u",
  "--unrestricted",
  "--no-ignore",
  "--no-ignore-dot",
  "--no-ignore-vcs",
  "--no-ignore-parent",
  "--no-ignore-global",
  "--no-ignore-files",
  "-g",
  "--glob",
  "--iglob",
  "--ignore-file",
  "--type-add",
  "-t",
  "--type",
];

/**
 * The walk a read-only program does, or undefined when it reads only what it names. `seen` holds
 * the options given (by name), `paths` the operands that are files or directories, `optionPaths`
 * the files options name.
 */
export function traversalOf(
  program: string,
  seen: ReadonlySet<string>,
  paths: readonly string[],
  optionPaths: readonly string[] = [],
): Traversal | undefined {
  const has = (...names: string[]) => names.some((name) => seen.has(name));
  // No operand: it reads the directory it runs in. Option-named files (`--from-file=dir`) too.
  const roots = [...(paths.length > 0 ? paths : ["."]), ...optionPaths];
  switch (program) {
    case "grep":
    case "egrep":
    case "fgrep": {
      const follows = has("-R", "--dereference-recursive");
      if (!follows && !has("-r", "--recursive", "-d", "--directories")) return undefined;
      return { program, roots, followsLinks: follows, skipsHidden: false, skipsGitDirectory: false };
    }
    case "rg":
      if (has("--files", "--type-list")) return undefined;
      return {
        program,
        roots,
        followsLinks: has("-L", "--follow"),
        skipsHidden: !has(...RG_UNHIDES),
        skipsGitDirectory: false,
      };
    case "diff":
      if (!has("-r", "--recursive")) return undefined;
      return {
        program,
        roots: [...paths, ...optionPaths],
        followsLinks: !has("--no-dereference"),
        skipsHidden: false,
        skipsGitDirectory: false,
      };
    case "git grep":
      return { program, roots, followsLinks: false, skipsHidden: false, skipsGitDirectory: true };
    default:
      return undefined;
  }
}
