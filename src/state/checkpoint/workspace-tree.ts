import { z } from "zod";
import { parseJsonOrThrow, parseWith } from "../../message/index.js";
import { HASH } from "./content-hash.js";

/** One entry of a directory as a snapshot keeps it; `mode` holds the permission bits only. */
export type TreeEntry =
  | { name: string; type: "file"; mode: number; size: number; hash: string }
  | { name: string; type: "dir"; mode: number; hash: string }
  | { name: string; type: "symlink"; target: string };

/** A directory: its entries sorted by name. Stored as a blob; `hash` of a dir entry names its tree. */
export interface Tree {
  entries: TreeEntry[];
}

const NAME = z
  .string()
  .min(1)
  .refine((name) => name !== "." && name !== ".." && !name.includes("/") && !name.includes("\0"), {
    message: "is not a file name",
  });
const MODE = z.number().int().min(0).max(0o7777);
const HASH_SCHEMA = z.string().regex(HASH, "is not a SHA-256 hex digest");

const TreeSchema = z.object({
  entries: z.array(
    z.discriminatedUnion("type", [
      z.object({
        name: NAME,
        type: z.literal("file"),
        mode: MODE,
        size: z.number().int().min(0),
        hash: HASH_SCHEMA,
      }),
      z.object({ name: NAME, type: z.literal("dir"), mode: MODE, hash: HASH_SCHEMA }),
      z.object({ name: NAME, type: z.literal("symlink"), target: z.string().min(1) }),
    ]),
  ),
});

/** Reads a stored tree blob; a corrupt one is an error naming the field (never a partial restore). */
export function parseTree(bytes: Uint8Array, hash: string): Tree {
  const what = `workspace tree ${hash.slice(0, 12)}`;
  return parseWith(TreeSchema, parseJsonOrThrow(Buffer.from(bytes).toString("utf8"), what), what);
}
