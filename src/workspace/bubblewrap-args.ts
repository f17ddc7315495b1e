import { existsSync } from "node:fs";
import { homedir } from "node:os";
import type { HiddenPaths } from "./hidden-paths.js";
import { HOST_SECRETS, type ResolvedSandboxPolicy } from "./sandbox-policy.js";

export interface SandboxMount {
  /** The workspace root: the only writable host directory (besides `writablePaths`). */
  root: string;
  /** Where the command starts (inside the root). */
  cwd: string;
  hidden: HiddenPaths;
}

/**
 * The bubblewrap arguments for one command: new user-visible namespaces (pid, ipc, uts, cgroup, net
 * unless allowed), no capabilities, the system read-only, empty tmpfs over /tmp and $HOME, the
 * workspace writable with its secret files hidden (git configs shown without their credentials), and the sandbox dying with its parent.
 * Order matters: later mounts cover earlier ones.
 */
export function bubblewrapArgs(policy: ResolvedSandboxPolicy, mount: SandboxMount): string[] {
  const args = [
    "--die-with-parent",
    "--new-session",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--cap-drop",
    "ALL",
  ];
  if (!policy.network) args.push("--unshare-net");
  for (const path of policy.systemPaths) args.push("--ro-bind-try", path, path);
  for (const path of HOST_SECRETS) if (existsSync(path)) args.push(...secretCover(path));
  const home = homedir();
  args.push("--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--tmpfs", home);
  for (const path of policy.readOnlyPaths) args.push("--ro-bind", path, path);
  for (const path of policy.writablePaths) args.push("--bind", path, path);
  args.push("--bind", mount.root, mount.root);
  for (const file of mount.hidden.files) args.push("--ro-bind", "/dev/null", file);
  for (const dir of mount.hidden.directories) args.push("--tmpfs", dir);
  for (const { path, copy } of mount.hidden.replaced ?? []) args.push("--ro-bind", copy, path);
  args.push("--chdir", mount.cwd, "--setenv", "HOME", home);
  return args;
}

/** `/etc/ssh` gets an empty tmpfs; a file gets /dev/null bound over it. */
function secretCover(path: string): string[] {
  return path.endsWith("/ssh") ? ["--tmpfs", path] : ["--ro-bind", "/dev/null", path];
}

/**
 * The command as run inside the sandbox: bash sets the hard per-process limits (they cannot be
 * raised again inside) and then runs the command with `bash -c`.
 */
export function limitedCommand(policy: ResolvedSandboxPolicy, command: string): string[] {
  const kib = (bytes: number) => Math.max(1, Math.floor(bytes / 1024));
  const limits = [
    `ulimit -t ${policy.cpuSeconds}`,
    `ulimit -v ${kib(policy.memoryBytes)}`,
    `ulimit -f ${kib(policy.maxFileBytes)}`,
  ].join(" && ");
  return ["bash", "-c", `${limits} && exec bash -c "$1"`, "sandbox", command];
}

/** The environment a sandboxed command gets: the allow-listed host variables, then the fixed ones. */
export function sandboxEnv(
  policy: ResolvedSandboxPolicy,
  host: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of policy.envAllowList) {
    const value = host[name];
    if (value !== undefined) env[name] = value;
  }
  env.PATH ??= "/usr/local/bin:/usr/bin:/bin";
  return { ...env, ...policy.env };
}
