import type { MessagePort } from "node:worker_threads";
import { type DocumentLimit, DocumentLimitError, DocumentReadError } from "../errors.js";
import type { Section } from "../types.js";
import { defaultReaders, readDocument } from "./read-document.js";
import type { ReaderInput } from "./reader.js";
import type { ZipLimits } from "./zip-limits.js";

/** What the pool sends a reader worker: one document to read with the built-in readers. */
export interface ReadRequest {
  id: number;
  input: ReaderInput;
}

/** A read's failure as plain data (an Error's own fields do not survive postMessage). */
export interface SerializedReadError {
  source: string;
  problem: string;
  limit?: DocumentLimit;
  value?: number;
}

export type ReadReply = { id: number; sections: Section[] } | { id: number; error: SerializedReadError };

/** The failure as data for the pool; anything that is not a DocumentReadError names the document too. */
export function serializeReadError(source: string, error: unknown): SerializedReadError {
  if (error instanceof DocumentLimitError)
    return { source: error.source, problem: error.reason, limit: error.limit, value: error.value };
  if (error instanceof DocumentReadError) return { source: error.source, problem: error.problem };
  return { source, problem: `the reader failed: ${(error as Error)?.message ?? String(error)}` };
}

/** The error a serialized failure was, rebuilt in the pool's thread. */
export function rebuildReadError(error: SerializedReadError): DocumentReadError {
  return error.limit !== undefined && error.value !== undefined
    ? new DocumentLimitError(error.source, error.problem, error.limit, error.value)
    : new DocumentReadError(error.source, error.problem);
}

/**
 * The worker's side: reads each document it is sent with the built-in readers (under `zip`
 * limits) and posts back its sections or its failure. Runs in a worker thread started by ReaderPool.
 */
export function serveReads(port: MessagePort, zip: ZipLimits): void {
  const readers = defaultReaders({ zip });
  port.on("message", (request: ReadRequest) => {
    readDocument(request.input, { readers }).then(
      (sections) => port.postMessage({ id: request.id, sections } satisfies ReadReply),
      (error: unknown) =>
        port.postMessage({
          id: request.id,
          error: serializeReadError(request.input.source, error),
        } satisfies ReadReply),
    );
  });
}
