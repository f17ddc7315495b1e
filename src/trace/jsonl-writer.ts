import { once } from "node:events";
import { createReadStream, createWriteStream, type WriteStream } from "node:fs";
import { createInterface } from "node:readline";
import { type AgentEvent, parseEvent } from "../event/index.js";
import { AgentScopeError, toErrorInfo } from "../message/index.js";

/** A trace file that cannot be read: which line is bad and why, or why the file cannot be opened. */
export class TraceFileError extends AgentScopeError {
  constructor(
    readonly file: string,
    /** The bad line (1-based); absent when the file itself cannot be read. */
    readonly line: number | undefined,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(
      line === undefined
        ? { type: "not_found", source: "trace", message: `cannot read trace ${file}: ${reason}` }
        : {
            type: "invalid_request",
            source: "trace",
            message: `${file}:${line}: not a valid trace event (${reason}); fix or remove that line`,
          },
      options,
    );
    this.name = "TraceFileError";
  }
}

/**
 * Appends events to a JSONL file, one line each, in order. Writes are buffered by the stream and
 * respect back-pressure; `close()` waits until every line is on disk (and reports a failed write).
 */
export class TraceWriter {
  private readonly out: WriteStream;
  private failure: Error | undefined;

  constructor(readonly file: string) {
    this.out = createWriteStream(file, { flags: "a", encoding: "utf8" });
    this.out.on("error", (error) => {
      this.failure ??= error;
    });
  }

  /** Queues one event; resolves at once unless the buffer is full. Throws if an earlier write failed. */
  async write(event: AgentEvent): Promise<void> {
    this.throwIfFailed();
    if (!this.out.write(`${JSON.stringify(event)}\n`)) {
      await Promise.race([once(this.out, "drain"), once(this.out, "close")]);
      this.throwIfFailed();
    }
  }

  /** Flushes and closes the file. */
  async close(): Promise<void> {
    if (!this.out.closed) {
      const closed = once(this.out, "close").catch(() => undefined);
      this.out.end();
      await closed;
    }
    this.throwIfFailed();
  }

  private throwIfFailed(): void {
    if (this.failure) {
      throw new AgentScopeError(
        {
          type: "internal",
          source: "trace",
          message: `writing trace ${this.file} failed: ${this.failure.message}`,
        },
        { cause: this.failure },
      );
    }
  }
}

/**
 * Passes an event stream through unchanged while appending each event to `file` as a JSONL line.
 * The file is flushed and closed when the stream ends, fails, or the consumer stops early.
 */
export async function* writeTrace(
  events: AsyncIterable<AgentEvent>,
  file: string,
): AsyncGenerator<AgentEvent> {
  const writer = new TraceWriter(file);
  let failed = false;
  try {
    for await (const event of events) {
      await writer.write(event);
      yield event;
    }
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    // A failed stream keeps its own error; a failed write is only thrown when nothing else went wrong.
    await writer.close().catch((error: unknown) => {
      if (!failed) throw error;
    });
  }
}

/** Reads a trace file event by event, checking each line with `parseEvent`; blank lines are skipped. */
export async function* iterateTrace(file: string): AsyncGenerator<AgentEvent> {
  const input = createReadStream(file, { encoding: "utf8" });
  try {
    await once(input, "open");
  } catch (error) {
    throw new TraceFileError(file, undefined, toErrorInfo(error).message, { cause: error });
  }
  const lines = createInterface({ input, crlfDelay: Infinity });
  let number = 0;
  try {
    for await (const line of lines) {
      number += 1;
      if (line.trim() === "") continue;
      let event: AgentEvent;
      try {
        event = parseEvent(line);
      } catch (error) {
        throw new TraceFileError(file, number, toErrorInfo(error).message);
      }
      yield event;
    }
  } finally {
    lines.close();
  }
}

/** Reads a whole trace file; a bad line is a TraceFileError naming its line number. */
export async function readTrace(file: string): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of iterateTrace(file)) events.push(event);
  return events;
}
