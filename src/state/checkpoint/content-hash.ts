import { createHash } from "node:crypto";
import type { CheckpointBlob } from "./checkpoint-store.js";

/** The SHA-256 of the bytes, lower-case hex: the name a blob is stored under. */
export function contentHash(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** A blob of JSON text (a tree, a message, a state) named by its hash. */
export function jsonBlob(value: unknown): CheckpointBlob {
  const bytes = Buffer.from(JSON.stringify(value), "utf8");
  return { hash: contentHash(bytes), bytes };
}

export const HASH = /^[0-9a-f]{64}$/;
