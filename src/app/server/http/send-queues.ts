import { fstatSync } from "node:fs";
import { readFile } from "node:fs/promises";
import type { Socket } from "node:net";

const TABLES = ["/proc/net/tcp", "/proc/net/tcp6"];

/**
 * Linux: the bytes each TCP socket of this network namespace has written but not had acknowledged
 * (its send queue, `tx_queue` in /proc/net/tcp and tcp6), by socket inode. Undefined where there is
 * no such table (not Linux, no /proc).
 */
export async function readSendQueues(): Promise<Map<number, number> | undefined> {
  const texts = await Promise.all(TABLES.map((path) => readFile(path, "latin1").catch(() => undefined)));
  if (texts.every((text) => text === undefined)) return undefined;
  const queues = new Map<number, number>();
  for (const text of texts) {
    if (text === undefined) continue;
    for (const line of text.split("\n").slice(1)) {
      const fields = line.trim().split(/\s+/);
      const queue = fields[4]?.split(":")[0];
      const inode = Number(fields[9]);
      if (queue === undefined || !(inode > 0)) continue;
      queues.set(inode, Number.parseInt(queue, 16));
    }
  }
  return queues;
}

/** The inode of a connected socket's file descriptor (what /proc/net/tcp names it by), if Node shows the descriptor. */
export function socketInode(socket: Socket): number | undefined {
  const fd = (socket as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
  if (typeof fd !== "number" || fd < 0) return undefined;
  try {
    return fstatSync(fd).ino;
  } catch {
    return undefined;
  }
}
