/**
 * The per-delta work of a streamed reply, one part at a time, for counting instructions: each part
 * runs `count` times over the real inputs of S1 (the paced mock's `real` chunk line), on the unbundled
 * build (`node src/build-agentscope.mjs --per-file`), so a part's cost is the difference of two counts:
 *
 *   valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null node --single-threaded \
 *     --predictable --import tsx src/per-delta-parts.ts <part> 100000   # minus the same with 0
 *
 * Parts, in the order a delta meets them: `parse` (JSON.parse of the chunk, which raw clients pay
 * too), `chunk` (the provider parser's `onEvent`: JSON.parse plus the ChatChunk), `ids` (one event id),
 * `event` (the TEXT_BLOCK_DELTA literal with its id), `fold` (the event folded into the reply Msg by
 * `applyEventInPlace`), `state` (the open-block lookup that finds the block a delta belongs to).
 * AGENTSCOPE_BENCH_DIST picks the build (default: the per-file build).
 */
import { distUrl, perFileDir } from "./agentscope-dist.js";

const [part = "parse", countArg = "100000"] = process.argv.slice(2);
const count = Number(countArg);
const dist = process.env.AGENTSCOPE_BENCH_DIST ?? perFileDir;
const load = (path: string) => import(distUrl(path, dist));

const { newEventId } = await load("message/id.js");
const { applyEventInPlace } = await load("event/apply-event.js");
const { BlockTracker } = await load("agent/block-tracker.js");
const { OpenAIChatStreamParser } = await load("model/openai/chat-stream.js");

/** The paced mock's chunk for one delta (sse-script.ts, `real` shape). */
const line = JSON.stringify({
  id: "chatcmpl-bench",
  object: "chat.completion.chunk",
  created: 1_700_000_000,
  model: "text-10000",
  service_tier: "default",
  system_fingerprint: "fp_bench0001",
  choices: [{ index: 0, delta: { content: "w42 " }, finish_reason: null, logprobs: null }],
  usage: null,
  obfuscation: "aBcD3f",
});

const replyId = "rep_bench";
const blockId = "blk_bench";
const createdAt = new Date(0).toISOString();
const keep: unknown[] = new Array(16);

const parts: Record<string, (i: number) => void> = {
  parse: (i) => {
    keep[i & 15] = JSON.parse(line);
  },
  chunk: (() => {
    const parser = new OpenAIChatStreamParser("openai");
    const out: unknown[] = [];
    return (i: number) => {
      parser.onEvent(line, undefined, out);
      if (out.length > 1024) out.length = 0;
      keep[i & 15] = out;
    };
  })(),
  ids: (i) => {
    keep[i & 15] = newEventId();
  },
  event: (i) => {
    keep[i & 15] = { id: newEventId(), createdAt, type: "TEXT_BLOCK_DELTA", replyId, blockId, delta: "w42 " };
  },
  fold: (() => {
    const fresh = () => ({
      id: replyId,
      role: "assistant",
      name: "bench",
      content: [{ type: "text", id: blockId, text: "" }],
      metadata: {},
      createdAt,
    });
    let msg = fresh();
    const event = { id: "evt_x", createdAt, type: "TEXT_BLOCK_DELTA", replyId, blockId, delta: "w42 " };
    return (i: number) => {
      // A reply of S1's length, then a new one: the text grows as it does in a real reply.
      if (i % 10_000 === 0) msg = fresh();
      applyEventInPlace(msg, event);
      keep[i & 15] = msg;
    };
  })(),
  state: (() => {
    const blocks = new BlockTracker();
    blocks.open(blockId, { kind: "text", id: blockId });
    return (i: number) => {
      keep[i & 15] = blocks.find(blockId);
    };
  })(),
};

const run = parts[part];
if (!run) throw new Error(`no part "${part}" (${Object.keys(parts).join(", ")})`);
for (let i = 0; i < count; i++) run(i);
console.log(JSON.stringify({ part, count, kept: keep.length }));
