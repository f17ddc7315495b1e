import { randomBytes } from "node:crypto";
import { link, open, readFile, rename, stat, unlink } from "node:fs/promises";
import { hostname } from "node:os";

export interface FileLockOptions {
  /** Give up after this long; default 10 s. */
  timeoutMs?: number;
  /** A lock older than this is taken to be left by a crashed process; default 30 s. */
  staleMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === "EPERM";
  }
}

/** Whether the lock holding `token` was left by a process that is gone (or is older than staleMs). */
async function isStale(lockPath: string, staleMs: number): Promise<string | undefined> {
  try {
    const [token, info] = await Promise.all([readFile(lockPath, "utf8"), stat(lockPath)]);
    const [pid, host] = token.split(" ");
    const deadHere = host === hostname() && Number(pid) > 0 && !isAlive(Number(pid));
    return deadHere || Date.now() - info.mtimeMs > staleMs ? token : undefined;
  } catch {
    return undefined;
  }
}

/** Removes a stale lock unless another process replaced it in the meantime. */
async function breakLock(lockPath: string, staleToken: string): Promise<void> {
  const aside = `${lockPath}.${randomBytes(6).toString("hex")}.stale`;
  try {
    await rename(lockPath, aside);
  } catch {
    return;
  }
  if ((await readFile(aside, "utf8").catch(() => staleToken)) !== staleToken) {
    await link(aside, lockPath).catch(() => {});
  }
  await unlink(aside).catch(() => {});
}

/**
 * Runs `fn` holding an exclusive lock file (created with O_EXCL), safe across processes on one
 * machine and on local file systems. Locks left by a crashed process are broken.
 */
export async function withFileLock<T>(
  lockPath: string,
  fn: () => Promise<T>,
  options: FileLockOptions = {},
): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const staleMs = options.staleMs ?? 30_000;
  const token = `${process.pid} ${hostname()} ${randomBytes(8).toString("hex")}`;
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await open(lockPath, "wx");
      try {
        await handle.writeFile(token);
      } finally {
        await handle.close();
      }
      break;
    } catch (error) {
      if ((error as { code?: string }).code !== "EEXIST") throw error;
      const stale = await isStale(lockPath, staleMs);
      if (stale) {
        await breakLock(lockPath, stale);
        continue;
      }
      if (Date.now() > deadline) {
        throw new Error(
          `could not lock ${lockPath} within ${timeoutMs} ms: another process holds it; if none does, delete the file`,
        );
      }
      await sleep(Math.min(2 + attempt, 25) * (0.5 + Math.random()));
    }
  }
  try {
    return await fn();
  } finally {
    if ((await readFile(lockPath, "utf8").catch(() => "")) === token) await unlink(lockPath).catch(() => {});
  }
}
