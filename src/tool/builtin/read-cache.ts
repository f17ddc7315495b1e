import { createHash } from "node:crypto";
import type { ToolContext } from "../types.js";

/** Where the Read tool keeps what it read, in the per-session tool state (plain JSON). */
export const READ_FILES_KEY = "builtin.readFiles";

export interface ReadRecord {
  mtimeMs: number;
  hash: string;
}

type ReadFiles = Record<string, ReadRecord>;

export function contentHash(content: string | Buffer): string {
  return createHash("sha256").update(content).digest("hex");
}

function readFiles(ctx: Pick<ToolContext, "state">): ReadFiles {
  const existing = ctx.state[READ_FILES_KEY];
  if (typeof existing === "object" && existing !== null) return existing as ReadFiles;
  const created: ReadFiles = {};
  ctx.state[READ_FILES_KEY] = created;
  return created;
}

/** Notes that the session has seen this content of the file (after a read or its own write). */
export function recordRead(
  ctx: Pick<ToolContext, "state">,
  path: string,
  content: string | Buffer,
  mtimeMs: number,
): void {
  readFiles(ctx)[path] = { mtimeMs, hash: contentHash(content) };
}

/** Why an edit of the file must be refused (never read, or changed since), or undefined when it may go on. */
export function staleReason(
  ctx: Pick<ToolContext, "state">,
  path: string,
  content: string,
): string | undefined {
  const record = readFiles(ctx)[path];
  if (!record)
    return `${path} has not been read in this session; read it with the Read tool before editing it`;
  if (record.hash !== contentHash(content)) {
    return `${path} has changed since it was last read; read it again before editing it`;
  }
  return undefined;
}
