/**
 * A local OpenAI Chat Completions mock: POST /v1/chat/completions streams the scripted SSE body as
 * fast as the socket takes it (64 KiB writes, honouring backpressure). Run as a child process so
 * the server never shares the client's event loop: it prints `listening <port>` on stdout.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { bodyFor } from "./sse-script.js";

const SLICE = 64 * 1024;
const cache = new Map<string, Buffer>();

function scripted(request: { model?: string; messages?: Array<{ role?: string }> }): Buffer {
  const key = `${request.model}|${request.messages?.at(-1)?.role}`;
  let body = cache.get(key);
  if (!body) {
    body = Buffer.from(bodyFor(request));
    cache.set(key, body);
  }
  return body;
}

function send(res: ServerResponse, body: Buffer): void {
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
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

function handle(req: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    try {
      if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
        res.writeHead(404, { "content-type": "application/json" }).end('{"error":{"message":"not found"}}');
        return;
      }
      send(res, scripted(JSON.parse(Buffer.concat(chunks).toString("utf8"))));
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
