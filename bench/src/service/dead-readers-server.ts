/**
 * The service for the dead-readers bench (dead-readers.ts), from the source through tsx: memory
 * backend, two users (token `dead` → user dead, `live` → user live), one agent whose model streams
 * DELTAS short text deltas at once. Session `big` (user dead) holds LOG_KIB KiB of logged events, so
 * each stream reading it from the start fills its socket's buffers. argv: <streams limits JSON>
 * <deltas> <logKiB>. Prints `listening <port>`, then every 250 ms `stat {...}`: RSS, open sockets, the
 * dead user's open streams.
 */
import { serve } from "@hono/node-server";
import { createApp } from "../../../src/app/server/app.js";
import { memoryBackend } from "../../../src/app/server/backend/memory-backend.js";
import { ServiceRuntime } from "../../../src/app/server/runtime/service-runtime.js";
import { createEvent } from "../../../src/event/index.js";
import type { ChatChunk, ChatModel } from "../../../src/model/index.js";

const [limitsJson = "{}", deltasText = "50", logKibText = "1024"] = process.argv.slice(2);
const deltas = Number(deltasText);
const model: ChatModel = {
  name: "deltas",
  provider: "bench",
  contextSize: 128_000,
  countTokens: () => 10,
  async *stream(): AsyncGenerator<ChatChunk> {
    let text = "";
    for (let k = 0; k < deltas; k++) {
      const delta = `delta ${k} of the live user's reply `;
      text += delta;
      yield { type: "text", blockId: "b1", delta };
    }
    yield {
      type: "final",
      content: [{ type: "text", id: "b1", text }],
      usage: { inputTokens: 10, outputTokens: deltas },
      stopReason: "stop",
    };
  },
};

const backend = memoryBackend({ maxEventsPerSession: 100_000 });
const runtime = new ServiceRuntime({
  backend,
  agents: [{ name: "bench", model }],
  maxConcurrentRuns: 1000,
  limits: { maxRunsPerUser: 1000 },
  streams: JSON.parse(limitsJson),
});
await runtime.createSession("dead", { sessionId: "big" });
const chunk = "x".repeat(8 * 1024);
const events = Array.from({ length: Math.ceil(Number(logKibText) / 8) }, (_, i) =>
  createEvent("TEXT_BLOCK_DELTA", { replyId: "r0", blockId: "b0", delta: `${i} ${chunk}` }),
);
await backend.events.append("big", events);

const app = createApp(runtime, {
  tokens: new Map([
    ["dead", "dead"],
    ["live", "live"],
  ]),
});
const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) =>
  process.stdout.write(`listening ${info.port}\n`),
) as import("node:http").Server;
server.maxConnections = 100_000;
process.stdout.on("error", () => {});
setInterval(() => {
  server.getConnections((_error, sockets) => {
    const stat = { rss: process.memoryUsage().rss, sockets, deadStreams: runtime.streams.openBy("dead") };
    process.stdout.write(`stat ${JSON.stringify(stat)}\n`);
  });
}, 250).unref();
process.on("SIGTERM", () => {
  server.closeAllConnections();
  server.close();
  void runtime.close().finally(() => process.exit(0));
});
