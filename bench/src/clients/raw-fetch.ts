/** The floor: `fetch` and a minimal SSE parser, no library. */
import type { BenchClient } from "./client.js";
import { rawClient, type StreamResult, sseAccumulator } from "./raw-common.js";

async function stream(url: string, body: unknown): Promise<StreamResult> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer bench" },
    body: JSON.stringify(body),
  });
  if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
  const sse = sseAccumulator();
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    sse.feed(decoder.decode(value, { stream: true }));
  }
  return sse.result;
}

export async function rawFetchClient(baseURL: string): Promise<BenchClient> {
  return rawClient("raw fetch", baseURL, stream);
}
