/**
 * A `fetch` that answers Chat Completions requests from the mock's script (sse-script.ts) with a body
 * cut the same way every time, with no socket and no mock process: `paced` one event per read (the
 * real chunk shape), `batched` 64 KiB per read (the trimmed shape), as the two mock modes deliver
 * them. For profile-hot-path.ts and profile-ab.ts, where only the client's own work should vary.
 */
import { S1_DELTAS, S3_DELTAS } from "./scenarios.js";
import { type ChunkShape, eventsFor } from "./sse-script.js";

// The fake answers through fetch: the node:http transport would bypass it.
process.env.AGENTSCOPE_TRANSPORT = "fetch";

export type FakeMode = "paced" | "batched";

const SLICE = 64 * 1024;

export function fakeFetch(mode: FakeMode): typeof fetch {
  const shape: ChunkShape = mode === "paced" ? "real" : "trimmed";
  const encoder = new TextEncoder();
  const cache = new Map<string, Uint8Array[]>();

  /** The reads of one scripted body, built once per script like the mock's. */
  const reads = (request: { model?: string; messages?: Array<{ role?: string }> }): Uint8Array[] => {
    const key = request.model === "tool" ? `tool|${request.messages?.at(-1)?.role}` : String(request.model);
    let parts = cache.get(key);
    if (!parts) {
      const events = eventsFor(request, shape);
      if (mode === "paced") parts = events.map((e) => encoder.encode(e));
      else {
        const body = encoder.encode(events.join(""));
        parts = [];
        for (let at = 0; at < body.length; at += SLICE) parts.push(body.subarray(at, at + SLICE));
      }
      cache.set(key, parts);
    }
    return parts;
  };
  // Every body is built before anything is timed.
  reads({ model: `text-${S1_DELTAS}` });
  reads({ model: `text-${S3_DELTAS}` });
  reads({ model: "tool", messages: [{ role: "user" }] });
  reads({ model: "tool", messages: [{ role: "tool" }] });

  return (async (_input: unknown, init?: RequestInit) => {
    const parts = reads(JSON.parse(String(init?.body)) as { model?: string });
    let next = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (next === parts.length) controller.close();
        // A copy, as a socket read hands over fresh memory.
        else controller.enqueue(parts[next++]!.slice());
      },
    });
    return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
  }) as typeof fetch;
}
