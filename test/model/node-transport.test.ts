import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { AgentScopeError } from "../../src/message/index.js";
import { userMsg } from "../../src/message/index.js";
import { OpenAIChatModel } from "../../src/model/openai/chat-model.js";
import {
  chooseTransport,
  defaultTransportName,
  TRANSPORT_ENV,
} from "../../src/model/transport/choose-transport.js";
import { nodeHttpTransport } from "../../src/model/transport/node-http.js";
import { requestJson } from "../../src/model/transport/request-json.js";
import type { HttpTransport, TransportOptions } from "../../src/model/transport/types.js";
import { chatCompletionFrames } from "./helpers/openai-wire.js";

/** A server that answers with `handler` and records each request's client port (one port = one socket). */
let handler: (req: IncomingMessage, res: ServerResponse) => void;
const ports: number[] = [];
const headersSeen: IncomingMessage["headers"][] = [];
let origin: string;
const server = createServer((req, res) => {
  ports.push(req.socket.remotePort ?? 0);
  headersSeen.push(req.headers);
  req.resume();
  req.on("end", () => handler(req, res));
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
afterEach(() => {
  ports.length = 0;
  headersSeen.length = 0;
  delete process.env[TRANSPORT_ENV];
});

const json = (body: unknown) => ({ provider: "toy", request: { url: `${origin}/x`, headers: {}, body } });

describe("transport choice", () => {
  const recorder = (): HttpTransport & { calls: number } => {
    const transport = Object.assign(
      (url: string, request: Parameters<HttpTransport>[1]) => {
        transport.calls++;
        return nodeHttpTransport(url, request);
      },
      { calls: 0 },
    );
    return transport;
  };

  it("is node:http by default on Node", async () => {
    expect(defaultTransportName()).toBe("node");
    expect(await chooseTransport({}, "toy")).toBe(nodeHttpTransport);
  });

  it("takes AGENTSCOPE_TRANSPORT, the transport option over it, and a fetch option as the fetch transport", async () => {
    process.env[TRANSPORT_ENV] = "fetch";
    expect(await chooseTransport({}, "toy")).not.toBe(nodeHttpTransport);
    expect(await chooseTransport({ transport: "node" }, "toy")).toBe(nodeHttpTransport);
    const fetched: string[] = [];
    handler = (_req, res) => res.end('{"ok":1}');
    const viaFetch: TransportOptions = {
      fetch: (url, init) => {
        fetched.push(url);
        return fetch(url, init);
      },
    };
    process.env[TRANSPORT_ENV] = "node";
    expect(await requestJson({ ...json({}), ...viaFetch })).toEqual({ ok: 1 });
    expect(fetched).toEqual([`${origin}/x`]);
  });

  it("calls a transport function given as the option", async () => {
    handler = (_req, res) => res.end('{"ok":2}');
    const transport = recorder();
    expect(await requestJson({ ...json({}), transport })).toEqual({ ok: 2 });
    expect(transport.calls).toBe(1);
  });

  it.each([
    [{ transport: "curl" as never }, /transport is "curl"; it takes "fetch", "node" or a function/],
    [{ transport: "node" as const, fetch }, /the fetch option only applies to transport "fetch"/],
  ])("rejects %o with a clear error", async (options, message) => {
    const error = (await requestJson({ ...json({}), ...options }).catch(
      (e: unknown) => e,
    )) as AgentScopeError;
    expect(error.info.type).toBe("invalid_request");
    expect(error.message).toMatch(message);
  });

  it("rejects an unknown AGENTSCOPE_TRANSPORT with a clear error", async () => {
    process.env[TRANSPORT_ENV] = "undici";
    const model = new OpenAIChatModel({ model: "gpt-5", baseURL: origin, apiKey: "k" });
    const error = await (async () => {
      for await (const _ of model.stream([userMsg("hi")])) {
        // drain
      }
    })().catch((e: unknown) => e as AgentScopeError);
    expect(error?.info.type).toBe("invalid_request");
    expect(error?.message).toMatch(/AGENTSCOPE_TRANSPORT is "undici"; it takes "fetch" or "node"/);
  });
});

describe("node:http transport", () => {
  it("reuses one keep-alive connection for sequential streams", async () => {
    const wire = chatCompletionFrames(["Hel", "lo"], { input: 3, output: 2 });
    handler = (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end([...wire.open, ...wire.deltas, ...wire.close].join(""));
    };
    const model = new OpenAIChatModel({ model: "gpt-5", baseURL: origin, apiKey: "k", transport: "node" });
    for (let i = 0; i < 3; i++) {
      let text = "";
      for await (const chunk of model.stream([userMsg("hi")])) if (chunk.type === "text") text += chunk.delta;
      expect(text).toBe("Hello");
    }
    expect(ports).toHaveLength(3);
    expect(new Set(ports).size).toBe(1);
  });

  it("sends the body with its length and asks for gzip or deflate, as fetch does", async () => {
    handler = (_req, res) => res.end("{}");
    await requestJson({ ...json({ q: "é" }), transport: "node" });
    expect(headersSeen[0]).toMatchObject({
      "content-length": String(Buffer.byteLength('{"q":"é"}')),
      "accept-encoding": "gzip, deflate",
    });
  });

  it.each([
    ["gzip", gzipSync],
    ["deflate", deflateSync],
    ["br", brotliCompressSync],
  ] as const)("decodes a %s body", async (encoding, compress) => {
    handler = (_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-encoding": encoding });
      res.end(compress(Buffer.from('{"vectors":[[1,2,3]]}')));
    };
    expect(await requestJson({ ...json({}), transport: "node" })).toEqual({ vectors: [[1, 2, 3]] });
  });

  it("fails with a clear connection error on an encoding it cannot decode", async () => {
    handler = (_req, res) => {
      res.writeHead(200, { "content-encoding": "zstd" });
      res.end("????");
    };
    const error = (await requestJson({ ...json({}), transport: "node", maxRetries: 0 }).catch(
      (e: unknown) => e,
    )) as AgentScopeError;
    expect(error.info.type).toBe("connection");
    expect(error.message).toMatch(/content-encoding "zstd", which the node transport cannot decode/);
  });

  it("aborts before the headers arrive with an aborted error", async () => {
    handler = () => {}; // never answers
    const controller = new AbortController();
    const pending = requestJson({ ...json({}), transport: "node", signal: controller.signal }).then(
      () => undefined,
      (e: unknown) => e as AgentScopeError,
    );
    while (ports.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    expect((await pending)?.info.type).toBe("aborted");
  });

  it("refuses a URL that is not http or https", async () => {
    const error = (await requestJson({
      provider: "toy",
      request: { url: "ftp://127.0.0.1/x", headers: {}, body: {} },
      transport: "node",
      maxRetries: 0,
    }).catch((e: unknown) => e)) as AgentScopeError;
    expect(error.info.type).toBe("connection");
    expect(error.message).toMatch(/speaks http and https, not ftp:/);
  });
});
