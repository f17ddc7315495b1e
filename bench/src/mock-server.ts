/**
 * A local OpenAI Chat Completions mock: POST /v1/chat/completions streams the scripted SSE. Run as a
 * child process so the server never shares the client's event loop: it prints `listening <port>`.
 * argv: [batched|paced] [paceMs]
 * - `batched` (default): the whole body as fast as the socket takes it (64 KiB writes, honouring
 *   backpressure; a client reads hundreds of events at once), trimmed chunks.
 * - `paced`: one event per write, the next after `paceMs` (0: the next event-loop turn, so each event
 *   leaves in its own write), real chunk shape with usage: what a provider pacing tokens looks like.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type ChunkShape, eventsFor } from "./sse-script.js";

const SLICE = 64 * 1024;
const mode = process.argv[2] === "paced" ? "paced" : "batched";
const paceMs = Number(process.argv[3] ?? "0");
const shape: ChunkShape = mode === "paced" ? "real" : "trimmed";
const cache = new Map<string, Buffer[]>();

type ChatRequest = { model?: string; messages?: Array<{ role?: string }> };

/** The scripted reply: one Buffer per event (paced) or one Buffer for the whole body (batched). */
function scripted(request: ChatRequest): Buffer[] {
  const key = `${request.model}|${request.messages?.at(-1)?.role}`;
  let parts = cache.get(key);
  if (!parts) {
    const events = eventsFor(request, shape);
    parts = mode === "paced" ? events.map((e) => Buffer.from(e)) : [Buffer.from(events.join(""))];
    cache.set(key, parts);
  }
  return parts;
}

function sendBatched(res: ServerResponse, body: Buffer): void {
  let offset = 0;
  const pump = () => {
    while (offset < body.length) {
      const end = Math.min(offset + SLICE, body.length);
      const more = res.write(body.subarray(offset, end));
      offset = end;
      if (!more) {
        res.once("drain", pump);
        return;
      }
    }
    res.end();
  };
  pump();
}

function sendPaced(res: ServerResponse, events: Buffer[]): void {
  let next = 0;
  const later = (fn: () => void) => (paceMs > 0 ? setTimeout(fn, paceMs) : setImmediate(fn));
  const pump = () => {
    if (res.destroyed) return;
    if (next === events.length) {
      res.end();
      return;
    }
    const more = res.write(events[next++]!);
    if (more) later(pump);
    else res.once("drain", () => later(pump));
  };
  pump();
}

function send(res: ServerResponse, parts: Buffer[]): void {
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  if (mode === "paced") sendPaced(res, parts);
  else sendBatched(res, parts[0]!);
}

function handle(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    try {
      if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
        res.writeHead(404, { "content-type": "application/json" }).end('{"error":{"message":"not found"}}');
        return;
      }
      send(res, scripted(JSON.parse(Buffer.concat(chunks).toString("utf8")) as ChatRequest));
    } catch (error) {
      res
        .writeHead(400, { "content-type": "application/json" })
        .end(JSON.stringify({ error: { message: (error as Error).message } }));
    }
  });
}

const server = createServer(handle);
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
process.on("disconnect", () => server.close(() => process.exit(0)));
process.on("SIGTERM", () => process.exit(0));
