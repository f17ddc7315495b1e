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
  constructor(source: string, problem: string, options?: { cause?: unknown }) {
    super({ type: "invalid_request", source: "rag", message: `cannot read ${source}: ${problem}` }, options);
    this.name = "DocumentReadError";
    this.source = source;
  }
}
