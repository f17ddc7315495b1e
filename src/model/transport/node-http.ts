import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { pipeline, type Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import type { BodyRead, BodyReader, HeaderLookup, HttpTransport } from "./types.js";

/**
 * The Node transport: `node:http` / `node:https` with one shared keep-alive agent per protocol, the
 * body read straight off the socket's `data` events (no WHATWG stream layers). Loaded lazily (a
 * dynamic import from choose-transport.ts), so browser and edge bundles never reach `node:http`.
 *
 * Like Node's `fetch`, it ignores HTTP(S)_PROXY: pass a `fetch` with a proxy dispatcher, or your own
 * transport, to go through a proxy. It asks for `gzip, deflate` (as fetch does) and decodes gzip,
 * deflate and br bodies.
 */
export const nodeHttpTransport: HttpTransport = (url, request) =>
  new Promise((resolve, reject) => {
    const { signal } = request;
    if (signal.aborted) return reject(signal.reason);
    const target = new URL(url);
    const secure = target.protocol === "https:";
    if (!secure && target.protocol !== "http:") {
      return reject(
        new TypeError(`the node transport speaks http and https, not ${target.protocol} (${url})`),
      );
    }
    const headers: Record<string, string | number> = {
      "accept-encoding": "gzip, deflate",
      "user-agent": "agentscope",
      ...request.headers,
    };
    if (request.body !== undefined) headers["content-length"] = Buffer.byteLength(request.body);
    const send = secure ? httpsRequest : httpRequest;
    const req = send(target, { method: request.method, headers, agent: secure ? httpsAgent() : httpAgent() });
    let reader: NodeBodyReader | undefined;
    const onAbort = () => {
      const reason = signal.reason instanceof Error ? signal.reason : new Error("aborted");
      req.destroy(reason);
      reader?.fail(reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    const release = () => signal.removeEventListener("abort", onAbort);
    req.on("error", (error) => {
      if (reader) reader.fail(error);
      else {
        release();
        reject(error);
      }
    });
    req.on("response", (res) => {
      reader = new NodeBodyReader(decoded(res), () => req.destroy(), release);
      resolve({ status: res.statusCode ?? 0, headers: headerLookup(res), body: reader });
    });
    req.end(request.body);
  });

/**
 * How long an idle pooled socket is kept (undici's default, so as fetch): a server or load balancer
 * that closes idle connections sooner would otherwise reset the next request sent on it. Node also
 * honours a shorter `Keep-Alive: timeout=N` hint. Sockets in use are never timed out by this.
 */
const IDLE_SOCKET_MS = 4_000;

let agents: { http: HttpAgent; https: HttpsAgent } | undefined;
const sharedAgents = () => {
  const options = { keepAlive: true, timeout: IDLE_SOCKET_MS };
  agents ??= { http: new HttpAgent(options), https: new HttpsAgent(options) };
  return agents;
};
const httpAgent = () => sharedAgents().http;
const httpsAgent = () => sharedAgents().https;

function headerLookup(res: IncomingMessage): HeaderLookup {
  return {
    get(name) {
      const value = res.headers[name.toLowerCase()];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(", ") : value;
    },
  };
}

/** The body as sent, or through the decompressor its content-encoding names. */
function decoded(res: IncomingMessage): Readable {
  const encoding = res.headers["content-encoding"]?.trim().toLowerCase();
  if (encoding === undefined || encoding === "" || encoding === "identity") return res;
  const decoder =
    encoding === "gzip" || encoding === "x-gzip"
      ? createGunzip()
      : encoding === "deflate"
        ? createInflate()
        : encoding === "br"
          ? createBrotliDecompress()
          : undefined;
  if (decoder === undefined) {
    res.destroy(
      new TypeError(`the server sent content-encoding "${encoding}", which the node transport cannot decode`),
    );
    return res;
  }
  pipeline(res, decoder, () => {}); // errors reach the decoder, which the reader listens to
  return decoder;
}

/** Bytes queued before the socket is paused (a consumer slower than the network). */
const HIGH_WATER = 1 << 20;

/**
 * Pull reads over a flowing Node stream: each `read` returns everything that arrived since the last
 * one (one chunk, or several joined), so a slow consumer gets fewer, larger reads rather than a queue.
 */
class NodeBodyReader implements BodyReader {
  private queue: Buffer[] = [];
  private queued = 0;
  private ended = false;
  private error: unknown;
  private waiting: { resolve: (read: BodyRead) => void; reject: (error: unknown) => void } | undefined;

  constructor(
    private readonly stream: Readable,
    private readonly destroy: () => void,
    private readonly release: () => void,
  ) {
    stream.on("data", (chunk: Buffer) => this.push(chunk));
    stream.on("end", () => this.finish());
    stream.on("error", (error) => this.fail(error));
    stream.on("close", () => {
      if (!this.ended)
        this.fail(
          Object.assign(new Error("the connection closed before the body ended"), { code: "ECONNRESET" }),
        );
    });
  }

  private push(chunk: Buffer): void {
    const waiting = this.waiting;
    if (waiting !== undefined) {
      this.waiting = undefined;
      waiting.resolve({ done: false, value: chunk });
      return;
    }
    this.queue.push(chunk);
    this.queued += chunk.length;
    if (this.queued >= HIGH_WATER) this.stream.pause();
  }

  private finish(): void {
    if (this.ended || this.error !== undefined) return;
    this.ended = true;
    this.release();
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.resolve({ done: true });
  }

  /** Fails the pending and every later read (abort, timeout, connection reset, bad encoding). */
  fail(error: unknown): void {
    if (this.ended || this.error !== undefined) return;
    this.error = error;
    this.queue = []; // as a failed fetch body: what was not read yet is dropped
    this.queued = 0;
    this.release();
    this.destroy();
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.reject(error);
  }

  read(): Promise<BodyRead> {
    if (this.queue.length > 0) {
      const value =
        this.queue.length === 1 ? (this.queue[0] as Buffer) : Buffer.concat(this.queue, this.queued);
      this.queue = [];
      if (this.queued >= HIGH_WATER) this.stream.resume();
      this.queued = 0;
      return Promise.resolve({ done: false, value });
    }
    if (this.error !== undefined) return Promise.reject(this.error);
    if (this.ended) return Promise.resolve({ done: true });
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }

  cancel(): Promise<void> {
    if (!this.ended && this.error === undefined) this.fail(new Error("the body was cancelled"));
    return Promise.resolve();
  }
}
