import { connect } from "node:net";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestHeader } from "../../src/app/server/http/request-header.js";
import { type LoopbackServer, serveOnLoopback, serveService } from "./loopback-server.js";

// requestHeader reads Node's raw header list under @hono/node-server and goes through Hono
// elsewhere: both must answer what Headers.get would, repeated headers included.

const app = new Hono();
app.get("/h", (c) =>
  c.json({
    direct: ["authorization", "accept", "x-twice", "origin"].map((name) => requestHeader(c, name) ?? null),
    viaHono: ["authorization", "accept", "x-twice", "origin"].map((name) => c.req.header(name) ?? null),
  }),
);

let server: LoopbackServer;
let port: number;
beforeAll(async () => {
  server = await serveOnLoopback(app.fetch);
  port = server.port;
});
afterAll(() => server.close());

/** Sends a raw request (headers may repeat and keep their case) with `Connection: close`. */
function raw(
  to: number,
  requestLine: string,
  headerLines: string[],
  body = "",
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(to, "127.0.0.1");
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      text += chunk;
    });
    socket.on("end", () =>
      resolve({ status: Number(text.slice(9, 12)), body: text.slice(text.indexOf("\r\n\r\n") + 4) }),
    );
    socket.on("error", reject);
    const length = body === "" ? [] : [`Content-Length: ${Buffer.byteLength(body)}`];
    socket.end(
      `${requestLine}\r\nHost: 127.0.0.1\r\nConnection: close\r\n${[...headerLines, ...length].join("\r\n")}\r\n\r\n${body}`,
    );
  });
}

async function rawGet(headerLines: string[]): Promise<{ direct: unknown[]; viaHono: unknown[] }> {
  return JSON.parse((await raw(port, "GET /h HTTP/1.1", headerLines)).body);
}

describe("requestHeader", () => {
  it("over Node matches Headers.get: any case, repeated values joined, absent is undefined", async () => {
    const body = await rawGet([
      "AUTHORIZATION: Bearer a",
      "X-Twice: one",
      "x-twice: two",
      "Accept: text/event-stream",
    ]);
    expect(body.direct).toEqual(["Bearer a", "text/event-stream", "one, two", null]);
    expect(body.direct).toEqual(body.viaHono);
  });

  it("a repeated Authorization is joined as Headers.get joins it (so no single token is taken from it)", async () => {
    const body = await rawGet(["Authorization: Bearer a", "Authorization: Bearer b"]);
    expect(body.direct[0]).toBe("Bearer a, Bearer b");
    expect(body.direct).toEqual(body.viaHono);
  });

  it("off Node (app.request) reads through Hono", async () => {
    const res = await app.request("/h", { headers: { authorization: "Bearer z", "x-twice": "1" } });
    const body = (await res.json()) as { direct: unknown[] };
    expect(body.direct).toEqual(["Bearer z", null, "1", null]);
  });
});

describe("the service's bearer auth over Node's raw headers", () => {
  let service: LoopbackServer;
  beforeAll(async () => {
    service = await serveService({ tokens: new Map([["right", "alice"]]) });
  });
  afterAll(() => service.close());
  const createSession = (headers: string[]) =>
    raw(service.port, "POST /v1/sessions HTTP/1.1", ["Content-Type: application/json", ...headers], "{}");

  it("takes the right token in any header case and refuses a wrong, missing or doubled one", async () => {
    expect((await createSession(["authorization: Bearer right"])).status).toBe(201);
    expect((await createSession(["AUTHORIZATION: bearer right"])).status).toBe(201);
    expect((await createSession(["Authorization: Bearer wrong"])).status).toBe(401);
    expect((await createSession([])).status).toBe(401);
    // a second header smuggled beside the right one does not pass as either token
    expect((await createSession(["Authorization: Bearer right", "Authorization: Bearer right"])).status).toBe(
      401,
    );
    expect((await createSession(["Authorization: Bearer wrong", "Authorization: Bearer right"])).status).toBe(
      401,
    );
  });

  it("refuses a body that is not declared JSON, read from the raw Content-Type", async () => {
    const sent = await raw(
      service.port,
      "POST /v1/sessions HTTP/1.1",
      ["Authorization: Bearer right", "Content-Type: text/plain"],
      "{}",
    );
    expect(sent.status).toBe(415);
  });
});
