// biome-ignore-all lint/suspicious/noTemplateCurlyInString: shell text, not templates
import { existsSync, mkdirSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The system's program directories, in the order the sandbox searches them after the shims. */
export const REAL_PATH = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"];
/** The sandbox variable naming the programs a shim lets through (space separated). */
export const DECLARED_VARIABLE = "DIFFERENTIAL_DECLARED";

/**
 * A shim for every program name on the system PATH: a directory the sandbox puts first on PATH.
 * A shim whose name is among the programs the analysis declared for this command execs the real
 * program (by absolute path, so the shims stay first on PATH for whatever it runs next); any other
 * shim records `shim NAME ARGS` in the log and exits 126 without running anything.
 */
export function writeShims(dir: string, logFile: string): void {
  mkdirSync(dir, { recursive: true });
  const script = [
    "#!/bin/sh",
    'name="${0##*/}"',
    `case " $${DECLARED_VARIABLE} " in`,
    `  *" $name "*)`,
    `    for dir in ${REAL_PATH.join(" ")}; do`,
    `      if [ -x "$dir/$name" ] && [ ! -d "$dir/$name" ]; then exec "$dir/$name" "$@"; fi`,
    "    done",
    "    exit 127;;",
    "esac",
    `printf 'shim %s %s\\n' "$name" "$*" >> '${logFile}'`,
    "exit 126",
    "",
  ].join("\n");
  writeFileSync(join(dir, ".shim"), script, { mode: 0o755 });
  for (const name of programNames()) symlinkSync(join(dir, ".shim"), join(dir, name));
}

/** Every executable name in the system's program directories. */
export function programNames(): Set<string> {
  const names = new Set<string>();
  for (const dir of REAL_PATH) {
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir)) {
      if (name.startsWith(".") || name.includes("/")) continue;
      try {
        const stat = statSync(join(dir, name));
        if (stat.isFile() && (stat.mode & 0o111) !== 0) names.add(name);
      } catch {
        // a dangling symlink runs nothing
      }
    }
  }
  return names;
}
