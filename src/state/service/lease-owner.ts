import { randomUUID } from "node:crypto";
import { hostname } from "node:os";

/** Identifies one lease holder: this host and process, plus a random part per lease. */
export function leaseOwner(): string {
  return `${hostname()}:${process.pid}:${randomUUID()}`;
}

/**
 * Whether a lease written by `owner` is certainly abandoned: it was taken on this host by a process
 * that no longer exists (killed without releasing). Leases from other hosts wait for their expiry.
 */
export function ownerIsGone(owner: string): boolean {
  const [host, pid] = owner.split(":");
  if (host !== hostname() || !pid || Number(pid) === process.pid) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/** `text` matched literally in an SQLite GLOB pattern (`*`, `?` and `[` each in brackets). */
export function globEscape(text: string): string {
  return text.replace(/[*?[]/g, (c) => `[${c}]`);
}
