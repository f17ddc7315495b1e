import { request } from "node:http";
import { afterEach, beforeEach, expect, it } from "vitest";
import { type LoopbackServer, serveService } from "./loopback-server.js";

// Bodies read from Node's request (node-body.ts): the limit and the parsing must hold over a real
// socket, for a declared length and for a chunked body alike.

let server: LoopbackServer;
let port: number;
beforeEach(async () => {
  server = await serveService({ maxBodyBytes: 200 });
  port = server.port;
});
afterEach(async () => {
  await server.close();
});

/** POSTs `parts` (chunked when there is more than one), answers status and parsed body. */
function post(path: string, parts: string[], headers: Record<string, string> = {}) {
  return new Promise<{ status: number; body: { error?: { type: string; message: string }; title?: string } }>(
    (resolve, reject) => {
      const chunked = parts.length > 1;
      const req = request(
        {
          host: "127.0.0.1",
          port,
          path,
          method: "POST",
          headers: {
            "content-type": "application/json",
            ...(chunked
              ? { "transfer-encoding": "chunked" }
              : { "content-length": String(Buffer.byteLength(parts[0]!)) }),
            ...headers,
          },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => {
            text += chunk;
          });
          res.on("end", () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : {} }));
        },
      );
      req.on("error", reject);
      for (const part of parts) req.write(part);
      req.end();
    },
  );
}

it("reads a JSON body with a declared length, a leading BOM included", async () => {
  const created = await post("/v1/sessions", [JSON.stringify({ agent: "a", title: "plain" })]);
  expect(created.status).toBe(201);
  expect(created.body.title).toBe("plain");
  const bom = await post("/v1/sessions", [`\uFEFF${JSON.stringify({ agent: "a", title: "bom" })}`]);
  expect(bom.status).toBe(201);
  expect(bom.body.title).toBe("bom");
});

it("refuses a declared length over the limit with 413, before reading it", async () => {
  const big = await post("/v1/sessions", [JSON.stringify({ agent: "a", title: "x".repeat(300) })]);
  expect(big.status).toBe(413);
  expect(big.body.error?.type).toBe("payload_too_large");
});

it("counts a chunked body: under the limit it is read, over it is a 413", async () => {
  const json = JSON.stringify({ agent: "a", title: "chunked" });
  const small = await post("/v1/sessions", [json.slice(0, 10), json.slice(10)]);
  expect(small.status).toBe(201);
  expect(small.body.title).toBe("chunked");
  const large = JSON.stringify({ agent: "a", title: "y".repeat(300) });
  const big = await post("/v1/sessions", [large.slice(0, 100), large.slice(100)]);
  expect(big.status).toBe(413);
});

it("a body that is not JSON is a 400 naming the problem", async () => {
  const bad = await post("/v1/sessions", ["{not json"]);
  expect(bad.status).toBe(400);
  expect(bad.body.error?.type).toBe("invalid_json");
});

it("a client that goes away mid-body does not take the server down", async () => {
  await new Promise<void>((resolve) => {
    const req = request({
      host: "127.0.0.1",
      port,
      path: "/v1/sessions",
      method: "POST",
      headers: { "content-type": "application/json", "content-length": "100" },
    });
    req.on("error", () => resolve());
    req.write('{"agent":');
    setTimeout(() => req.destroy(), 50);
  });
  const after = await post("/v1/sessions", [JSON.stringify({ agent: "a" })]);
  expect(after.status).toBe(201);
});
