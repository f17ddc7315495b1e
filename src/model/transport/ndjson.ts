import type { OnWireEvent, TextDecoderSink, WireEventTarget } from "./sse.js";

/** Newline-delimited JSON (Ollama): each non-blank line is one event with no event name. */
export class NdjsonSplitter<Out> implements TextDecoderSink {
  private buffer = "";

  constructor(
    private readonly target: WireEventTarget<Out>,
    private readonly out: Out,
  ) {}

  feed(text: string): void {
    const buffer = this.buffer === "" ? text : this.buffer + text;
    let newline = buffer.indexOf("\n");
    if (newline === -1) {
      this.buffer = buffer;
      return;
    }
    let start = 0;
    while (newline !== -1) {
      const line = buffer.slice(start, newline).trim();
      if (line !== "") this.target.onEvent(line, undefined, this.out);
      start = newline + 1;
      newline = buffer.indexOf("\n", start);
    }
    this.buffer = buffer.slice(start);
  }

  end(): void {
    const line = this.buffer.trim();
    this.buffer = "";
    if (line !== "") this.target.onEvent(line, undefined, this.out);
  }
}

export function createNdjsonReader(onEvent: OnWireEvent): TextDecoderSink {
  return new NdjsonSplitter<undefined>({ onEvent: (data, event) => onEvent(data, event) }, undefined);
}
