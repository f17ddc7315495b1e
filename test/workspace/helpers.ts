import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BubblewrapRunner, type SandboxPolicy } from "../../src/workspace/index.js";

/** A fresh real directory under the system temp dir, and its removal. */
export function tempDir(prefix = "agentscope-ws-"): { dir: string; cleanup: () => void } {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Why bubblewrap cannot run here (undefined when it can). */
export async function bubblewrapMissing(): Promise<string | undefined> {
  const { dir, cleanup } = tempDir();
  try {
    await new BubblewrapRunner(dir).check();
    return undefined;
  } catch (error) {
    return `bubblewrap cannot run here: ${(error as Error).message}`;
  } finally {
    cleanup();
  }
}

/** Runs a command with a runner and returns the whole output. */
export async function runIn(
  runner: BubblewrapRunner,
  command: string,
  options: { cwd?: string; timeoutMs?: number; maxOutputChars?: number } = {},
): Promise<string> {
  let output = "";
  for await (const chunk of runner.run({
    command,
    cwd: options.cwd ?? runner.root,
    timeoutMs: options.timeoutMs ?? 20_000,
    maxOutputChars: options.maxOutputChars ?? 100_000,
    signal: new AbortController().signal,
  }))
    output += chunk;
  return output;
}

export function sandbox(root: string, policy: SandboxPolicy = {}): BubblewrapRunner {
  return new BubblewrapRunner(root, policy);
}

/** Processes on this machine whose command line contains `marker`. */
export function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
      if (cmdline.includes(marker)) found.push(Number(entry));
    } catch {}
  }
  return found;
}
