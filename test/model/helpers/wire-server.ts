import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach } from "vitest";

/** One scripted answer: a status, headers, and body frames written in order. */
export interface ScriptedResponse {
  status?: number;
  headers?: Record<string, string>;
  /** Written one by one (SSE frames, NDJSON lines, or one JSON body). */
  frames?: Array<string | Uint8Array>;
  /** Wait this long between frames. */
  frameDelayMs?: number;
  /** Destroy the socket after the frames (a stream cut mid-way). */
  cut?: boolean;
  /** Keep the response open after the frames until the client goes away. */
  hang?: boolean;
  /** Do not even send headers; keep the request open. */
  silent?: boolean;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  body: unknown;
}

/** A tiny loopback server that serves recorded chunks in order and records what it received. */
export interface WireServer {
  url: string;
  requests: RecordedRequest[];
  /** Queue answers; each request takes the next one (the last one repeats). */
  queue(...responses: ScriptedResponse[]): void;
  close(): Promise<void>;
}

export async function startWireServer(): Promise<WireServer> {
  const requests: RecordedRequest[] = [];
  const pending: ScriptedResponse[] = [];
  const open = new Set<ServerResponse>();
  const server = createServer(async (req, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    let body: unknown = raw;
    try {
      body = raw === "" ? undefined : JSON.parse(raw);
    } catch {}
    requests.push({ method: req.method ?? "", path: req.url ?? "", headers: req.headers, body });
    const script = (pending.length > 1 ? pending.shift() : pending[0]) ?? {
      status: 500,
      frames: ["no script"],
    };
    open.add(res);
    res.on("close", () => open.delete(res));
    if (script.silent) return;
    res.writeHead(script.status ?? 200, { "content-type": "text/event-stream", ...script.headers });
    res.flushHeaders();
    for (const frame of script.frames ?? []) {
      if (script.frameDelayMs) await new Promise((r) => setTimeout(r, script.frameDelayMs));
      if (res.destroyed) return;
      res.write(frame);
    }
    if (script.cut) {
      await new Promise((r) => setTimeout(r, 10));
      res.socket?.destroy();
      return;
    }
    if (!script.hang) res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    queue: (...responses) => {
      pending.length = 0;
      pending.push(...responses);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.socket?.destroy();
        server.close(() => resolve());
      }),
  };
}

/** One SSE frame for a JSON payload (or a literal like `[DONE]`). */
export function sse(data: unknown, event?: string): string {
  const payload = typeof data === "string" ? data : JSON.stringify(data);
  return `${event ? `event: ${event}\n` : ""}data: ${payload}\n\n`;
}

/**
 * One wire server for a test file: started before all tests, closed after, its request log
 * cleared before each test. Use it inside tests only (the server starts in `beforeAll`).
 */
export function wireServerForFile(): Omit<WireServer, "close"> {
  let server: WireServer | undefined;
  const started = (): WireServer => {
    if (!server) throw new Error("wireServerForFile: the server starts in beforeAll; use it inside a test");
    return server;
  };
  beforeAll(async () => {
    server = await startWireServer();
  });
  afterAll(async () => {
    await server?.close();
  });
  beforeEach(() => {
    if (server) server.requests.length = 0;
  });
  return {
    get url() {
      return started().url;
    },
    get requests() {
      return started().requests;
    },
    queue: (...responses) => started().queue(...responses),
  };
}
