import { CREDENTIAL_DIRECTORIES, CREDENTIAL_FILES } from "../permission/index.js";

/** What a bubblewrap sandbox lets a command see and use. Every field has a safe default. */
export interface SandboxPolicy {
  /** Allow network access (default false: a new, empty network namespace, not even loopback to the host). */
  network?: boolean;
  /**
   * Host paths mounted read-only so programs run (default: /usr, /bin, /sbin, /lib, /lib32, /lib64,
   * /etc, /opt, those that exist). Nothing else of the host is visible: not $HOME, not /tmp, not /work.
   */
  systemPaths?: string[];
  /** More host paths mounted read-only (a toolchain, a shared cache). */
  readOnlyPaths?: string[];
  /** More host paths mounted writable (use sparingly: the sandbox can change them). */
  writablePaths?: string[];
  /**
   * Names of environment variables passed in from the host (default: PATH, LANG, LC_ALL, LC_CTYPE,
   * TERM, TZ). Everything else is dropped: API keys in the host's environment never reach a command.
   */
  envAllowList?: string[];
  /** Variables set in the sandbox whatever the host has (after the allow-list). */
  env?: Record<string, string>;
  /**
   * Files hidden inside the workspace, from commands and from the file tools alike: a base name
   * (`*` is a wildcard, case-insensitive) or a path tail with `/` (`.cargo/credentials`). Default:
   * every credential file the permission engine knows (CREDENTIAL_FILES in credential-paths.ts:
   * `.env*`, keys, `.npmrc`, `.pgpass`, `.git-credentials`, shell histories, ...), at any depth
   * (node_modules and .git included); git configs holding credentials are shown without them (see
   * HiddenPathScanner). `[]` for both lists hides none and skips the scan.
   */
  hiddenFiles?: readonly string[];
  /**
   * Directories hidden inside the workspace (an empty tmpfs in the sandbox; the file tools list and
   * read nothing in them). Default: CREDENTIAL_DIRECTORIES (`.ssh`, `.gnupg`, `.aws`, `.azure`,
   * `.kube`, `.docker`, `.config/gcloud`, `.config/gh`, ...).
   */
  hiddenDirectories?: readonly string[];
  /**
   * Directory entries the scan for hidden paths may look at before each command, node_modules and
   * .git included (default 200,000). Past it the command fails with an error saying so: what was not
   * scanned is never shown unchecked.
   */
  maxScanEntries?: number;
  /** CPU seconds per process (RLIMIT_CPU; default 60). */
  cpuSeconds?: number;
  /** Address space per process in bytes (RLIMIT_AS; default 2 GiB). */
  memoryBytes?: number;
  /** Largest file a command may write, in bytes (RLIMIT_FSIZE; default 1 GiB). */
  maxFileBytes?: number;
  /**
   * Processes and threads alive at once in one command's tree, enforced with a pids cgroup (default
   * 256). When no pids cgroup can be created here the command fails with SandboxUnavailableError;
   * `null` runs without a process limit (the wall-clock timeout still ends a fork bomb).
   */
  maxProcesses?: number | null;
  /** The bubblewrap binary (default `bwrap` on the PATH). */
  bwrapPath?: string;
}

export const DEFAULT_SYSTEM_PATHS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc", "/opt"];
export const DEFAULT_ENV_ALLOW_LIST = ["PATH", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "TZ"];
/** The credential files the permission engine knows (credential-paths.ts): one list for both. */
export const DEFAULT_HIDDEN_FILES: readonly string[] = CREDENTIAL_FILES;
/** The credential directories the permission engine knows (credential-paths.ts). */
export const DEFAULT_HIDDEN_DIRECTORIES: readonly string[] = CREDENTIAL_DIRECTORIES;

/** Files on the host that stay hidden even though /etc is visible. */
export const HOST_SECRETS = ["/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-", "/etc/ssh"];

export type ResolvedSandboxPolicy = Required<Omit<SandboxPolicy, "maxProcesses">> & {
  maxProcesses: number | null;
};

/** The policy with defaults filled in; throws a RangeError naming a bad limit. */
export function resolveSandboxPolicy(policy: SandboxPolicy = {}): ResolvedSandboxPolicy {
  const resolved: ResolvedSandboxPolicy = {
    network: policy.network ?? false,
    systemPaths: policy.systemPaths ?? DEFAULT_SYSTEM_PATHS,
    readOnlyPaths: policy.readOnlyPaths ?? [],
    writablePaths: policy.writablePaths ?? [],
    envAllowList: policy.envAllowList ?? DEFAULT_ENV_ALLOW_LIST,
    env: policy.env ?? {},
    hiddenFiles: policy.hiddenFiles ?? DEFAULT_HIDDEN_FILES,
    hiddenDirectories: policy.hiddenDirectories ?? DEFAULT_HIDDEN_DIRECTORIES,
    maxScanEntries: policy.maxScanEntries ?? 200_000,
    cpuSeconds: policy.cpuSeconds ?? 60,
    memoryBytes: policy.memoryBytes ?? 2 * 1024 ** 3,
    maxFileBytes: policy.maxFileBytes ?? 1024 ** 3,
    maxProcesses: policy.maxProcesses === undefined ? 256 : policy.maxProcesses,
    bwrapPath: policy.bwrapPath ?? "bwrap",
  };
  const positive = (name: string, value: number | null) => {
    if (value !== null && !(Number.isInteger(value) && value > 0))
      throw new RangeError(`sandbox policy: ${name} must be a positive integer, got ${String(value)}`);
  };
  positive("cpuSeconds", resolved.cpuSeconds);
  positive("memoryBytes", resolved.memoryBytes);
  positive("maxFileBytes", resolved.maxFileBytes);
  positive("maxProcesses", resolved.maxProcesses);
  positive("maxScanEntries", resolved.maxScanEntries);
  for (const path of [...resolved.systemPaths, ...resolved.readOnlyPaths, ...resolved.writablePaths]) {
    if (!path.startsWith("/")) throw new RangeError(`sandbox policy: paths must be absolute, got "${path}"`);
  }
  return resolved;
}
