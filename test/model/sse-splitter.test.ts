import { createParser } from "eventsource-parser";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { NdjsonSplitter } from "../../src/model/transport/ndjson.js";
import { SseSplitter } from "../../src/model/transport/sse.js";

type Seen = Array<[string, string | undefined]>;

/** The events the splitter hands over for `reads` (strings fed one by one, then end). */
function split(reads: string[]): Seen {
  const seen: Seen = [];
  const splitter = new SseSplitter({ onEvent: (data, event, out: Seen) => out.push([data, event]) }, seen);
  for (const read of reads) splitter.feed(read);
  splitter.end();
  return seen;
}

/** The same through eventsource-parser, the reference the transport used before. */
function reference(reads: string[]): Seen {
  const seen: Seen = [];
  const parser = createParser({ onEvent: (message) => seen.push([message.data, message.event]) });
  for (const read of reads) parser.feed(read);
  parser.reset({ consume: true });
  return seen;
}

/** `bytes` cut at `cuts` (sorted offsets), decoded as a socket's reads would be. */
function decodeReads(bytes: Uint8Array, cuts: number[]): string[] {
  const decoder = new TextDecoder();
  const reads: string[] = [];
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    reads.push(decoder.decode(bytes.subarray(at, cut), { stream: true }));
    at = cut;
  }
  return reads;
}

describe("SseSplitter", () => {
  it("hands over single-line data events as they complete", () => {
    expect(split(['data: {"a":1}\n\ndata: {"b"', ":2}\n", "\n"])).toEqual([
      ['{"a":1}', undefined],
      ['{"b":2}', undefined],
    ]);
  });

  it("joins multi-line data with \\n and keeps an empty data line", () => {
    expect(split(["data: 1\ndata:2\ndata\ndata: \n\n"])).toEqual([["1\n2\n\n", undefined]]);
  });

  it("passes event names and resets them after each event; an empty name is none", () => {
    expect(split(["event: delta\ndata: x\n\nevent:\ndata: y\n\ndata: z\n\n"])).toEqual([
      ["x", "delta"],
      ["y", undefined],
      ["z", undefined],
    ]);
  });

  it("skips comments, id, retry and unknown fields; a blank line without data is no event", () => {
    expect(
      split([": keep-alive\n\nid: 7\nretry: 100\nfoo: bar\ndata: x\n\n", "event: ping\n\ndata: y\n\n"]),
    ).toEqual([
      ["x", undefined],
      ["y", undefined],
    ]);
  });

  it("reads CRLF and lone CR line ends, with a CRLF cut between two reads", () => {
    expect(split(["data: a\r", "\n\r", "\ndata: b\r\rdata: c\r\n", "\r\n"])).toEqual([
      ["a", undefined],
      ["b", undefined],
      ["c", undefined],
    ]);
  });

  it("drops an event whose blank line never came and an incomplete last line", () => {
    expect(split(["data: a\n\ndata: b\n"])).toEqual([["a", undefined]]);
    expect(split(["data: a\n\ndata: b"])).toEqual([["a", undefined]]);
  });

  it("gives the same events for every cut of the bytes, inside CRLF and inside UTF-8 characters", () => {
    const body = "\uFEFFevent: é\r\ndata: 日本\r\ndata: ü: 1\r\n\r\n: c\r\ndata: 🙂\n\n";
    const bytes = new TextEncoder().encode(body);
    const want: Seen = [
      ["日本\nü: 1", "é"],
      ["🙂", undefined],
    ];
    for (let a = 0; a <= bytes.length; a++) {
      for (let b = a; b <= bytes.length; b++) expect(split(decodeReads(bytes, [a, b]))).toEqual(want);
    }
  });

  it("agrees with eventsource-parser on random streams cut into random reads", () => {
    const line = fc.oneof(
      fc.constantFrom(
        "",
        "",
        "data",
        "data:",
        "data: ",
        ": comment",
        ":",
        "event:",
        "id: 1",
        "retry: 5",
        "x: y",
      ),
      fc.string({ unit: "grapheme", maxLength: 8 }).map((v) => `data: ${v}`),
      fc.string({ unit: "grapheme", maxLength: 8 }).map((v) => `data:${v}`),
      fc.string({ unit: "grapheme", maxLength: 4 }).map((v) => `event: ${v}`),
    );
    const clean = (text: string) => text.replace(/[\r\n]/g, "");
    const stream = fc
      .array(fc.tuple(line, fc.constantFrom("\n", "\r\n", "\r")), { maxLength: 30 })
      .map((lines) => lines.map(([l, end]) => clean(l) + end).join(""))
      // eventsource-parser waits for a LF after a final CR forever (see the next test).
      .map((text) => (text.endsWith("\r") ? `${text}\n` : text));
    fc.assert(
      fc.property(stream, fc.array(fc.nat(), { maxLength: 8 }), (text, cutSeeds) => {
        const cuts = [...new Set(cutSeeds.map((n) => n % (text.length + 1)))].sort((x, y) => x - y);
        const reads: string[] = [];
        let at = 0;
        for (const cut of [...cuts, text.length]) {
          reads.push(text.slice(at, cut));
          at = cut;
        }
        expect(split(reads)).toEqual(reference(reads));
      }),
      { numRuns: 500 },
    );
  });
});

describe("SseSplitter at the end of the body", () => {
  it("takes a final CR as a line end (WHATWG), where eventsource-parser waits for a LF", () => {
    expect(split(["data: x\r\r"])).toEqual([["x", undefined]]);
    expect(reference(["data: x\r\r"])).toEqual([]);
  });
});

describe("NdjsonSplitter", () => {
  it("hands over each non-blank line, across reads, and the last line without a newline", () => {
    const seen: string[] = [];
    const splitter = new NdjsonSplitter({ onEvent: (data, _event, out: string[]) => out.push(data) }, seen);
    for (const read of ['{"a":1}\r\n\n{"b"', ":2}\n  \n", '{"c":3}']) splitter.feed(read);
    splitter.end();
    expect(seen).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });
});
