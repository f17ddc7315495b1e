import { readFileSync } from "node:fs";
import { parse } from "yaml";

/**
 * Wire bodies from recordings other projects captured from the live Anthropic and Gemini APIs and
 * that are committed unmodified under `test/model/fixtures/recorded/` (see each folder's SOURCES.md).
 * Two shapes are read: VCR cassettes (YAML, one interaction per HTTP exchange) and vercel/ai
 * `*.chunks.txt` files (one `data:` payload per line). Where a source keeps only the payloads (or one
 * non-streamed JSON body), the SSE framing is put back here, at test time; the payload bytes go out
 * exactly as recorded.
 */

const RECORDED = new URL("../fixtures/recorded/", import.meta.url);

/** A recorded file's text (`test/model/fixtures/recorded/<path>`). */
export function recordedText(path: string): string {
  return readFileSync(new URL(path, RECORDED), "utf8");
}

/** One recorded HTTP exchange: what the client sent and what the API answered. */
export interface RecordedExchange {
  /** The request body as sent (parsed JSON), when the cassette kept it. */
  request: unknown;
  status: number;
  contentType: string;
  /** The response body: the recorded text, or the JSON of a body the cassette stored parsed. */
  body: string;
}

interface CassetteInteraction {
  request?: { body?: unknown; parsed_body?: unknown };
  response?: {
    status?: { code?: number };
    headers?: Record<string, string[]>;
    body?: { string?: string };
    parsed_body?: unknown;
  };
}

/**
 * The exchanges of a VCR cassette, in order. pydantic-ai stores JSON bodies parsed (`parsed_body`),
 * so those are re-serialised with JSON.stringify (same values, not the original whitespace); streamed
 * bodies (`body.string`) are the recorded text.
 */
export function cassette(path: string): RecordedExchange[] {
  const doc = parse(recordedText(path)) as { interactions?: CassetteInteraction[] };
  if (!Array.isArray(doc.interactions)) throw new Error(`${path}: not a VCR cassette (no interactions)`);
  return doc.interactions.map((interaction, index) => {
    const { request, response } = interaction;
    if (!response) throw new Error(`${path}: interaction ${index} has no response`);
    const raw = response.body?.string;
    const body = typeof raw === "string" ? raw : JSON.stringify(response.parsed_body);
    if (body === undefined) throw new Error(`${path}: interaction ${index} has no response body`);
    const headers = Object.fromEntries(
      Object.entries(response.headers ?? {}).map(([name, values]) => [name.toLowerCase(), values[0]]),
    );
    const sent = request?.parsed_body ?? request?.body;
    return {
      request: typeof sent === "string" ? JSON.parse(sent) : sent,
      status: response.status?.code ?? 200,
      contentType: headers["content-type"] ?? "application/json",
      body,
    };
  });
}

/** The non-empty lines of a vercel/ai `*.chunks.txt` file, each one JSON payload as the API sent it. */
export function chunkPayloads(path: string): string[] {
  const lines = recordedText(path)
    .split("\n")
    .filter((line) => line.trim() !== "");
  for (const line of lines) JSON.parse(line); // a clear failure on anything but JSON lines
  return lines;
}

/** Gemini's `alt=sse` framing around recorded GenerateContentResponse payloads. */
export function geminiSse(payloads: string[]): string {
  return payloads.map((data) => `data: ${data}\r\n\r\n`).join("");
}

/** The `data:` payloads of an SSE body, parsed: what the recording says, read without our parsers. */
export function sseData(body: string): Array<Record<string, unknown>> {
  return body
    .split(/\r?\n/)
    .filter((line) => line.startsWith("data:"))
    .map((line) => JSON.parse(line.slice(5)) as Record<string, unknown>);
}
