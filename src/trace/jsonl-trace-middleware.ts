import type { Middleware } from "../agent/index.js";
import { writeTrace } from "./jsonl-writer.js";

export interface JsonlTraceOptions {
  /**
   * The JSONL file each reply is appended to, or a function choosing it per session. Each line is a
   * whole event, so sessions may share a file; one file per session keeps each one readable alone.
   */
  file: string | ((session: { sessionId: string; agentName: string }) => string);
  /** Middleware name (default `jsonl-trace`). */
  name?: string;
}

/** Records every event of every reply to a JSONL trace file (what `agentscope replay` reads). */
export function jsonlTraceMiddleware(options: JsonlTraceOptions): Middleware {
  const { file } = options;
  return {
    name: options.name ?? "jsonl-trace",
    onReply(input, ctx, next) {
      const path =
        typeof file === "string" ? file : file({ sessionId: ctx.state.sessionId, agentName: ctx.agentName });
      return writeTrace(next(input), path);
    },
  };
}
