import { fstatSync } from "node:fs";
import { readFile } from "node:fs/promises";
import type { Socket } from "node:net";

const TABLES = ["/proc/net/tcp", "/proc/net/tcp6"];

const SPACE = 32;

/** Where the `n`-th space-separated token of text[from, to) starts, or -1. */
function tokenAt(text: string, from: number, to: number, n: number): number {
  let i = from;
  for (let k = 0; ; k++) {
    while (i < to && text.charCodeAt(i) === SPACE) i++;
    if (i >= to) return -1;
    if (k === n) return i;
    while (i < to && text.charCodeAt(i) !== SPACE) i++;
  }
}

/**
 * Adds the table's sockets that have bytes waiting to `queues`. A line is `sl: local remote st
 * tx_queue:rx_queue tr:when retrnsmt uid timeout inode …`; one with an empty send queue is skipped
 * before its inode is read (most are), so 10,000 sockets take a few ms.
 */
export function addQueued(text: string, queues: Map<number, number>): void {
  let start = text.indexOf("\n") + 1; // after the header
  while (start > 0 && start < text.length) {
    let end = text.indexOf("\n", start);
    if (end < 0) end = text.length;
    const tx = tokenAt(text, start, end, 4);
    if (tx >= 0 && !text.startsWith("00000000:", tx)) {
      const queued = Number.parseInt(text.slice(tx, text.indexOf(":", tx)), 16);
      const at = tokenAt(text, tx, end, 5);
      const inode = at < 0 ? Number.NaN : Number.parseInt(text.slice(at, end), 10);
      if (inode > 0 && queued > 0) queues.set(inode, queued);
    }
    start = end + 1;
  }
}

/**
 * Linux: the bytes each TCP socket of this network namespace has written but not had acknowledged
 * (its send queue, `tx_queue` in /proc/net/tcp and tcp6), by socket inode, for the sockets that have
 * any (a socket missing from the map has none). Undefined where there is no such table (not Linux,
 * no /proc).
 */
export async function readSendQueues(): Promise<Map<number, number> | undefined> {
  const texts = await Promise.all(TABLES.map((path) => readFile(path, "latin1").catch(() => undefined)));
  if (texts.every((text) => text === undefined)) return undefined;
  const queues = new Map<number, number>();
  for (const text of texts) if (text !== undefined) addQueued(text, queues);
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
