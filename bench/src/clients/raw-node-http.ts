/** The Node floor: `node:http` with a keep-alive agent, a minimal SSE splitter and `JSON.parse`, no library. */
import { Agent, request } from "node:http";
import type { BenchClient } from "./client.js";
import { rawClient, type StreamResult, sseAccumulator } from "./raw-common.js";

const agent = new Agent({ keepAlive: true });

function stream(url: string, body: unknown): Promise<StreamResult> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: "POST",
      agent,
      headers: {
        "content-type": "application/json",
        authorization: "Bearer bench",
        "content-length": Buffer.byteLength(payload),
      },
    });
    req.on("error", reject);
    req.on("response", (res) => {
      if (res.statusCode !== 200) return reject(new Error(`HTTP ${res.statusCode}`));
      const sse = sseAccumulator();
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => sse.feed(chunk));
      res.on("end", () => resolve(sse.result));
      res.on("error", reject);
    });
    req.end(payload);
  });
}

export async function rawNodeHttpClient(baseURL: string): Promise<BenchClient> {
  return rawClient("raw node:http", baseURL, stream);
}
