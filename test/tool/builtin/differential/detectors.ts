import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { CANARY_LOG, type CanaryTree, MARKER_PREFIX, SHIM_LOG } from "./canary-tree.js";
import type { SandboxRun } from "./sandbox.js";
import { changes, type Snapshot, snapshot } from "./snapshot.js";

/** The ways a command shows it was not read-only. */
export type Detector = "changed-file" | "secret-read" | "program-ran" | "log-written";

export interface Observation {
  detector: Detector;
  detail: string;
}

/** The directories whose every change a read-only command must not cause (the log is checked apart). */
export function watchedDirectories(tree: CanaryTree): string[] {
  return [tree.work, tree.home, tree.outside, tree.tmp];
}

/**
 * The watched directories as they are now. /tmp's own mtime is left out: programs make and remove
 * scratch files there (git's signature check does); a file left behind is still a change.
 */
export function treeSnapshot(tree: CanaryTree): Snapshot {
  const entries = new Map(snapshot(tree.root, watchedDirectories(tree)));
  entries.set(relative(tree.root, tree.tmp), "dir (scratch: its mtime is not compared)");
  return entries;
}

/** Everything a run did that a read-only command must not do, judged against the tree before it. */
export function observe(tree: CanaryTree, before: Snapshot, run: SandboxRun): Observation[] {
  const found: Observation[] = [];
  for (const change of changes(before, treeSnapshot(tree)))
    found.push({ detector: "changed-file", detail: change });
  found.push(...secretsIn(tree, run.output));
  found.push(...logEntries(tree));
  return found;
}

/** A marker (whole, or its prefix when only part was printed) in the output. */
export function secretsIn(tree: CanaryTree, output: string): Observation[] {
  const found: Observation[] = [];
  for (const [where, marker] of tree.markers) {
    if (output.includes(marker))
      found.push({ detector: "secret-read", detail: `printed the secret of ${where}` });
  }
  if (found.length === 0 && output.includes(MARKER_PREFIX)) {
    found.push({ detector: "secret-read", detail: "printed part of a secret marker" });
  }
  return found;
}

/** Lines the shims and canary programs wrote, and any other file that appeared in the log directory. */
function logEntries(tree: CanaryTree): Observation[] {
  if (!existsSync(tree.log)) return [{ detector: "log-written", detail: "the log directory was removed" }];
  const found: Observation[] = [];
  for (const name of readdirSync(tree.log)) {
    const path = join(tree.log, name);
    if (name === SHIM_LOG || name === CANARY_LOG) {
      for (const line of readFileSync(path, "utf8").split("\n").filter(Boolean)) {
        const [kind, program, ...args] = line.split(" ");
        const what =
          kind === "shim"
            ? `ran ${program}, which is not on the read-only allow-list`
            : `ran the canary ${program} that .git/config names`;
        found.push({ detector: "program-ran", detail: `${what} (args: ${args.join(" ").slice(0, 120)})` });
      }
    } else {
      found.push({ detector: "log-written", detail: `wrote ${name} into the log directory` });
    }
  }
  return found;
}
