/**
 * One keep-alive HTTP/1.1 connection that POSTs and reads a chunked SSE response at a time, with no
 * http.Agent, IncomingMessage or stream layers: a load generator sharing the server's cores should
 * cost them as little as it can. Bytes are read as latin1, so a chunk's size counts characters; the
 * bench's frames are ASCII.
 */
import { connect, type Socket } from "node:net";

type State = "idle" | "head" | "size" | "data" | "crlf" | "end" | "body";

interface Pending {
  onOpen: () => void;
  onFrame: (frame: string) => void;
  resolve: () => void;
  reject: (error: Error) => void;
  status: number;
}

export class SseConnection {
  #socket: Socket | undefined;
  #buffer = "";
  #state: State = "idle";
  /** Characters left in the current chunk (or in a sized error body). */
  #remaining = 0;
  /** SSE text not yet split into frames (or an error body). */
  #text = "";
  #pending: Pending | undefined;

  constructor(
    private readonly host: string,
    private readonly port: number,
  ) {}

  /** POSTs `body` as JSON to `path`; `onFrame` gets each SSE frame; resolves when the response ends. */
  post(path: string, body: string, onOpen: () => void, onFrame: (frame: string) => void): Promise<void> {
    if (this.#pending) return Promise.reject(new Error("a request is already in flight"));
    return new Promise((resolve, reject) => {
      this.#pending = { onOpen, onFrame, resolve, reject, status: 0 };
      this.#state = "head";
      this.#buffer = "";
      this.#text = "";
      this.#open().write(
        `POST ${path} HTTP/1.1\r\nHost: ${this.host}:${this.port}\r\nContent-Type: application/json\r\n` +
          `Accept: text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
    });
  }

  close(): void {
    this.#socket?.destroy();
    this.#socket = undefined;
  }

  #open(): Socket {
    if (this.#socket) return this.#socket;
    const socket = connect(this.port, this.host);
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => this.#onData(chunk));
    const gone = (error?: Error) => {
      if (this.#socket === socket) this.#socket = undefined;
      this.#fail(error ?? new Error("the server closed the connection mid-response"));
    };
    socket.on("error", gone);
    socket.on("close", () => gone());
    this.#socket = socket;
    return socket;
  }

  #fail(error: Error): void {
    const pending = this.#pending;
    if (!pending) return;
    this.#pending = undefined;
    this.#state = "idle";
    pending.reject(error);
  }

  #finish(): void {
    const pending = this.#pending!;
    this.#pending = undefined;
    this.#state = "idle";
    if (pending.status === 200) pending.resolve();
    else pending.reject(new Error(`HTTP ${pending.status}: ${this.#text}`));
  }

  #onData(chunk: string): void {
    this.#buffer += chunk;
    for (;;) {
      const buffer = this.#buffer;
      switch (this.#state) {
        case "head": {
          const end = buffer.indexOf("\r\n\r\n");
          if (end === -1) return;
          const head = buffer.slice(0, end).toLowerCase();
          this.#buffer = buffer.slice(end + 4);
          const pending = this.#pending!;
          pending.status = Number(head.slice(9, 12));
          const length = /\r\ncontent-length: *(\d+)/.exec(head)?.[1];
          if (length !== undefined) {
            this.#remaining = Number(length);
            this.#state = "body";
          } else this.#state = "size";
          if (pending.status === 200) pending.onOpen();
          break;
        }
        case "size": {
          const end = buffer.indexOf("\r\n");
          if (end === -1) return;
          this.#remaining = Number.parseInt(buffer.slice(0, end), 16);
          this.#buffer = buffer.slice(end + 2);
          this.#state = this.#remaining === 0 ? "end" : "data";
          break;
        }
        case "data":
        case "body": {
          if (buffer.length === 0) return;
          const take = Math.min(this.#remaining, buffer.length);
          this.#text += take === buffer.length ? buffer : buffer.slice(0, take);
          this.#buffer = take === buffer.length ? "" : buffer.slice(take);
          this.#remaining -= take;
          if (this.#state === "body") {
            if (this.#remaining === 0) this.#finish();
            else return;
            break;
          }
          this.#frames();
          if (this.#remaining === 0) this.#state = "crlf";
          break;
        }
        case "crlf":
          if (buffer.length < 2) return;
          this.#buffer = buffer.slice(2);
          this.#state = "size";
          break;
        case "end":
          // the last chunk's CRLF (no trailers)
          if (buffer.length < 2) return;
          this.#buffer = buffer.slice(2);
          this.#finish();
          break;
        case "idle":
          return;
      }
    }
  }

  /** Hands complete frames (blank-line terminated) to the caller; a 200's only. */
  #frames(): void {
    const pending = this.#pending!;
    if (pending.status !== 200) return;
    let start = 0;
    let end = this.#text.indexOf("\n\n");
    while (end !== -1) {
      pending.onFrame(this.#text.slice(start, end));
      start = end + 2;
      end = this.#text.indexOf("\n\n", start);
    }
    if (start > 0) this.#text = this.#text.slice(start);
  }
}
