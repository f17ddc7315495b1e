import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Read-only files the sandbox binds over a workspace file (a git config without its credentials).
 * They live in one private directory of this process (mode 0700, outside every sandbox, removed at
 * exit), named by the hash of their content, so equal copies are written once and a copy is never
 * changed after a sandbox has bound it.
 */
export class SanitizedCopies {
  #dir: string | undefined;

  /** The directory, created on first use. */
  get directory(): string {
    if (this.#dir === undefined) {
      const dir = mkdtempSync(join(tmpdir(), "agentscope-sandbox-copies-"));
      process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
      this.#dir = dir;
    }
    return this.#dir;
  }

  /** The path of a read-only file holding `text`. */
  copyOf(text: string): string {
    const file = join(this.directory, createHash("sha256").update(text).digest("hex"));
    if (!existsSync(file)) {
      const partial = `${file}.${process.pid}.partial`;
      rmSync(partial, { force: true });
      writeFileSync(partial, text, { mode: 0o444 });
      renameSync(partial, file);
    }
    return file;
  }
}

/** The copies of this process (one directory for every workspace). */
export const sanitizedCopies = new SanitizedCopies();
