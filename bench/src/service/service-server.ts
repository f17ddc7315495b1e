/**
 * The agentscope service (createApp + ServiceRuntime, memory backend) in its own process, with an
 * agent whose model streams DELTAS text deltas, one every INTERVAL ms; each delta is the wall-clock
 * time (ms, µs precision) at which the model emitted it. Prints `listening <port>`.
 * argv: <deltas> <intervalMs> <maxRuns>
 */
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { ChatChunk, ChatModel } from "../../../src/model/index.js";
import { distDir, distUrl } from "../agentscope-dist.js";

type App = typeof import("../../../src/app/index.js");
const app = (await import(distUrl("app/index.js"))) as App;
const { ServiceRuntime } = app;
const honoServerPath = createRequire(join(distDir, "index.js")).resolve("@hono/node-server");
const { serve } = (await import(pathToFileURL(honoServerPath).href)) as typeof import("@hono/node-server");

const [deltas = 20, intervalMs = 100, maxRuns = 2000] = process.argv.slice(2).map(Number);
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const timestampModel: ChatModel = {
  name: "timestamps",
  provider: "bench",
  contextSize: 128_000,
  countTokens: () => 10,
  async *stream(): AsyncGenerator<ChatChunk> {
    let text = "";
    for (let k = 0; k < deltas; k++) {
      await sleep(intervalMs);
      const delta = `${now().toFixed(3)} `;
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

const runtime = new ServiceRuntime({
  backend: app.memoryBackend(),
  agents: [{ name: "bench", model: timestampModel }],
  maxConcurrentRuns: maxRuns,
  // Every load stream is the same (anonymous) user: without this the per-user default (a quarter of
  // maxConcurrentRuns) answers 429 above maxRuns / 4 streams.
  limits: { maxRunsPerUser: maxRuns },
});
const server = serve({ fetch: app.createApp(runtime).fetch, port: 0, hostname: "127.0.0.1" }, (info) =>
  process.stdout.write(`listening ${info.port}\n`),
);
(server as import("node:http").Server).maxConnections = 100_000;
process.on("SIGTERM", () => process.exit(0));
