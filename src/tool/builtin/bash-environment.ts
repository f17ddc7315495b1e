/**
 * The variables the Bash tool sets for every command, on the host and in a sandbox alike (each
 * runner adds them to its own environment with `withCommandEnvironment`). The permission check
 * calls `git status`, `git diff` and `git log` read-only because they run under these: git then
 * never rewrites `.git/index` to refresh its stat cache as a side effect of reading.
 */
export const BASH_COMMAND_ENVIRONMENT: Readonly<Record<string, string>> = Object.freeze({
  // `git status` (and other readers) take no optional lock, so they never write the index.
  GIT_OPTIONAL_LOCKS: "0",
  // `git diff` refreshes the index even without optional locks; this config turns that off
  // (its output is the same: a file whose stat data alone changed shows no difference).
  GIT_CONFIG_COUNT: "1",
  GIT_CONFIG_KEY_0: "diff.autoRefreshIndex",
  GIT_CONFIG_VALUE_0: "false",
});

/**
 * `base` with `extra` set on top. git's `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>`
 * entries of `extra` are numbered after the ones `base` already has, so neither set replaces the other.
 */
export function withCommandEnvironment(
  base: NodeJS.ProcessEnv,
  extra: Readonly<Record<string, string>> = BASH_COMMAND_ENVIRONMENT,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  const first = gitConfigCount(base);
  let added = 0;
  for (const [name, value] of Object.entries(extra)) {
    const entry = /^GIT_CONFIG_(KEY|VALUE)_(\d+)$/.exec(name);
    if (name === "GIT_CONFIG_COUNT") added = Math.max(added, Number(value));
    else if (entry) env[`GIT_CONFIG_${entry[1]}_${first + Number(entry[2])}`] = value;
    else env[name] = value;
  }
  if (added > 0) env.GIT_CONFIG_COUNT = String(first + added);
  return env;
}

/** The config entries an environment already passes to git (a count git would reject counts as none). */
function gitConfigCount(env: NodeJS.ProcessEnv): number {
  const count = env.GIT_CONFIG_COUNT;
  return count !== undefined && /^\d+$/.test(count) ? Number(count) : 0;
}
