import { existsSync } from "node:fs";
import { mkdir, readFile, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

const CGROUP_ROOT = "/sys/fs/cgroup";
let counter = 0;

/**
 * A pids cgroup holding one sandboxed command's process tree: `pids.max` caps the processes and
 * threads alive at once, and `kill()` ends every process in it however it detached.
 */
export class PidsCgroup {
  private constructor(readonly path: string) {}

  /** Creates a cgroup capped at `maxProcesses`, or returns why none can be created here. */
  static async create(maxProcesses: number): Promise<PidsCgroup | string> {
    const name = `agentscope-${process.pid}-${++counter}`;
    const tried: string[] = [];
    for (const parent of await candidateParents()) {
      const path = join(parent, name);
      try {
        await mkdir(path);
      } catch (error) {
        tried.push(`${parent}: ${(error as Error).message}`);
        continue;
      }
      if (existsSync(join(path, "pids.max"))) {
        await writeFile(join(path, "pids.max"), String(maxProcesses));
        return new PidsCgroup(path);
      }
      await rmdir(path).catch(() => {});
      tried.push(`${parent}: no pids controller`);
    }
    return tried.length > 0 ? tried.join("; ") : "no cgroup file system is mounted";
  }

  /** The file a process writes its pid to in order to join. */
  get procsFile(): string {
    return join(this.path, "cgroup.procs");
  }

  /** SIGKILLs every process still in the cgroup, then removes it (retrying while they exit). */
  async kill(): Promise<void> {
    for (let attempt = 0; attempt < 50; attempt++) {
      const pids = (await readFile(this.procsFile, "utf8").catch(() => "")).split("\n").filter(Boolean);
      for (const pid of pids) {
        try {
          process.kill(Number(pid), "SIGKILL");
        } catch {}
      }
      try {
        await rmdir(this.path);
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  }
}

/** cgroup v1's pids hierarchy, then (cgroup v2) this process's own cgroup. */
async function candidateParents(): Promise<string[]> {
  const parents: string[] = [];
  const v1 = join(CGROUP_ROOT, "pids");
  if (existsSync(v1)) parents.push(v1);
  if (existsSync(join(CGROUP_ROOT, "cgroup.controllers"))) {
    const own = (await readFile("/proc/self/cgroup", "utf8").catch(() => ""))
      .split("\n")
      .find((line) => line.startsWith("0::"));
    if (own) parents.push(join(CGROUP_ROOT, own.slice(3)));
  }
  return parents;
}
