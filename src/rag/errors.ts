import { AgentScopeError, type ErrorType } from "../message/index.js";

/** A RAG failure: a missing collection, a bad vector, a filter a store cannot run. */
export class RagError extends AgentScopeError {
  constructor(message: string, type: ErrorType = "invalid_request", options?: { cause?: unknown }) {
    super({ type, source: "rag", message }, options);
    this.name = "RagError";
  }
}

/** A file no reader could turn into sections (unreadable, encrypted, unsupported); names the file. */
export class DocumentReadError extends AgentScopeError {
  readonly source: string;
  /** What is wrong, without the file's name. */
  readonly problem: string;
  constructor(source: string, problem: string, options?: { cause?: unknown }) {
    super({ type: "invalid_request", source: "rag", message: `cannot read ${source}: ${problem}` }, options);
    this.name = "DocumentReadError";
    this.source = source;
    this.problem = problem;
  }
}

/** The limits a document is read under (see ZipLimits and ReaderPoolOptions). */
export type DocumentLimit =
  | "maxUncompressedBytes"
  | "maxCompressionRatio"
  | "maxArchiveEntries"
  | "timeoutMs"
  | "maxMemoryMb";

/**
 * A document refused because reading it would pass a limit: an archive that inflates too far (a zip
 * bomb), a read that takes too long or needs too much memory. Names the file, the limit and its value.
 */
export class DocumentLimitError extends DocumentReadError {
  readonly limit: DocumentLimit;
  readonly value: number;
  /** What passed the limit (the problem without the limit's name and value). */
  readonly reason: string;
  constructor(
    source: string,
    reason: string,
    limit: DocumentLimit,
    value: number,
    options?: { cause?: unknown },
  ) {
    super(source, `${reason} (limit ${limit}: ${value})`, options);
    this.name = "DocumentLimitError";
    this.limit = limit;
    this.value = value;
    this.reason = reason;
  }
}
