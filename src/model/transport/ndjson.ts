import type { OnWireEvent, TextDecoderSink } from "./sse.js";

/** Newline-delimited JSON (Ollama): each non-blank line is one event with no event name. */
export function createNdjsonReader(onEvent: OnWireEvent): TextDecoderSink {
  let buffer = "";
  return {
    feed(text) {
      buffer += text;
      let newline = buffer.indexOf("\n");
      if (newline === -1) return;
      let start = 0;
      while (newline !== -1) {
        const line = buffer.slice(start, newline).trim();
        if (line !== "") onEvent(line, undefined);
        start = newline + 1;
        newline = buffer.indexOf("\n", start);
      }
      buffer = buffer.slice(start);
    },
    end() {
      const line = buffer.trim();
      buffer = "";
      if (line !== "") onEvent(line, undefined);
    },
  };
}
