import { connect } from "node:net";
import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requestHeader } from "../../src/app/server/http/request-header.js";
import { type LoopbackServer, serveOnLoopback } from "./loopback-server.js";

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

/** Sends a raw request (so headers can repeat and keep their case) and answers the JSON body. */
function rawGet(headerLines: string[]): Promise<{ direct: unknown[]; viaHono: unknown[] }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let text = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      text += chunk;
    });
    socket.on("end", () => resolve(JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4))));
    socket.on("error", reject);
    socket.end(`GET /h HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${headerLines.join("\r\n")}\r\n\r\n`);
  });
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
