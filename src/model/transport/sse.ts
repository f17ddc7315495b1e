/** Turns decoded text into events. `end` flushes what is buffered when the body ends. */
export interface TextDecoderSink {
  feed(text: string): void;
  end(): void;
}

export type OnWireEvent = (data: string, event: string | undefined) => void;

/**
 * Where a splitter hands each event: `onEvent(data, eventName, out)` with the `out` it was built
 * with, passed through untouched (the transport's chunk array). A method call on one object, not a
 * closure per event.
 */
export interface WireEventTarget<Out> {
  onEvent(data: string, event: string | undefined, out: Out): void;
}

const LF = 10;
const SPACE = 32;
const COLON = 58;

/** `data:` at `at` (d a t a :). */
function isData(text: string, at: number): boolean {
  return (
    text.charCodeAt(at) === 100 &&
    text.charCodeAt(at + 1) === 97 &&
    text.charCodeAt(at + 2) === 116 &&
    text.charCodeAt(at + 3) === 97 &&
    text.charCodeAt(at + 4) === COLON
  );
}

/**
 * Server-sent events, split for the wire: the common line `data: {...}` followed by a blank line is
 * handed over with one `slice` and no intermediate object. Full SSE semantics otherwise: multi-line
 * data joined by `\n`, `event:` names (empty = none), comments and unknown fields skipped, `id:` and
 * `retry:` ignored, LF, CR or CRLF line ends (a CRLF may be cut between two reads), an event without
 * its blank line at the end of the body dropped (as eventsource-parser and the WHATWG parser do; a
 * blank line ended by a CR that is the body's last byte counts, as in the WHATWG parser).
 * A BOM never reaches it: TextDecoder strips it.
 */
export class SseSplitter<Out> implements TextDecoderSink {
  /** The incomplete last line of the previous read. */
  private pending = "";
  private data = "";
  private dataLines = 0;
  private eventName: string | undefined = undefined;
  /** The previous read ended on CR: a LF starting this one belongs to it. */
  private afterCR = false;

  constructor(
    private readonly target: WireEventTarget<Out>,
    private readonly out: Out,
  ) {}

  feed(text: string): void {
    if (text === "") return; // a read that ended inside a UTF-8 character
    let chunk = text;
    if (this.afterCR) {
      this.afterCR = false;
      if (chunk.charCodeAt(0) === LF) chunk = chunk.slice(1);
    }
    if (this.pending !== "") {
      chunk = this.pending + chunk;
      this.pending = "";
    }
    const rest = chunk.indexOf("\r") === -1 ? this.linesLF(chunk) : this.linesAny(chunk);
    if (rest < chunk.length) this.pending = chunk.slice(rest);
  }

  end(): void {
    // An incomplete line or an event without its blank line is not an event.
    this.pending = "";
    this.data = "";
    this.dataLines = 0;
    this.eventName = undefined;
    this.afterCR = false;
  }

  /** Lines ended by LF only (what providers send). Returns where the incomplete last line starts. */
  private linesLF(chunk: string): number {
    let start = 0;
    let lf = chunk.indexOf("\n");
    while (lf !== -1) {
      if (lf === start) this.dispatch();
      else if (isData(chunk, start)) {
        const value = chunk.slice(chunk.charCodeAt(start + 5) === SPACE ? start + 6 : start + 5, lf);
        if (this.dataLines === 0 && chunk.charCodeAt(lf + 1) === LF) {
          // One data line and its blank line: the event, with nothing buffered.
          const event = this.eventName;
          this.eventName = undefined;
          this.target.onEvent(value, event, this.out);
          start = lf + 2;
          lf = chunk.indexOf("\n", start);
          continue;
        }
        this.addData(value);
      } else this.field(chunk, start, lf);
      start = lf + 1;
      lf = chunk.indexOf("\n", start);
    }
    return start;
  }

  /** Lines ended by CR, LF or CRLF. A CR at the very end ends its line; a LF opening the next read is skipped. */
  private linesAny(chunk: string): number {
    let start = 0;
    let cr = chunk.indexOf("\r");
    let lf = chunk.indexOf("\n");
    while (cr !== -1 || lf !== -1) {
      const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf);
      if (end === start) this.dispatch();
      else this.field(chunk, start, end);
      start = end + 1;
      if (end === cr) {
        if (start === chunk.length) this.afterCR = true;
        else if (chunk.charCodeAt(start) === LF) start += 1;
      }
      if (cr !== -1 && cr < start) cr = chunk.indexOf("\r", start);
      if (lf !== -1 && lf < start) lf = chunk.indexOf("\n", start);
    }
    return start;
  }

  /** One non-blank line `chunk[start, end)`. */
  private field(chunk: string, start: number, end: number): void {
    const first = chunk.charCodeAt(start);
    if (first === COLON) return; // a comment (keep-alive)
    const colon = chunk.indexOf(":", start);
    const nameEnd = colon === -1 || colon > end ? end : colon;
    let valueStart = nameEnd + 1;
    if (valueStart < end && chunk.charCodeAt(valueStart) === SPACE) valueStart += 1;
    const value = valueStart >= end ? "" : chunk.slice(valueStart, end);
    const length = nameEnd - start;
    if (length === 4 && first === 100 && chunk.startsWith("data", start)) this.addData(value);
    else if (length === 5 && first === 101 && chunk.startsWith("event", start))
      this.eventName = value === "" ? undefined : value;
    // id, retry and unknown fields are not used by any provider wire.
  }

  private addData(value: string): void {
    this.data = this.dataLines === 0 ? value : `${this.data}\n${value}`;
    this.dataLines += 1;
  }

  private dispatch(): void {
    const lines = this.dataLines;
    const data = this.data;
    const event = this.eventName;
    this.data = "";
    this.dataLines = 0;
    this.eventName = undefined;
    if (lines > 0) this.target.onEvent(data, event, this.out);
  }
}

/** Server-sent events to a callback (comments and keep-alives skipped); see SseSplitter. */
export function createSseReader(onEvent: OnWireEvent): TextDecoderSink {
  return new SseSplitter<undefined>({ onEvent: (data, event) => onEvent(data, event) }, undefined);
}
