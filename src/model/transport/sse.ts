import { createParser } from "eventsource-parser";

/** Turns decoded text into events. `end` flushes what is buffered when the body ends. */
export interface TextDecoderSink {
  feed(text: string): void;
  end(): void;
}

export type OnWireEvent = (data: string, event: string | undefined) => void;

/** Server-sent events via eventsource-parser; comments and keep-alives are skipped. */
export function createSseReader(onEvent: OnWireEvent): TextDecoderSink {
  const parser = createParser({ onEvent: (message) => onEvent(message.data, message.event) });
  return {
    feed: (text) => parser.feed(text),
    end: () => parser.reset({ consume: true }),
  };
}
