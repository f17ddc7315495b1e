import { afterEach, describe, expect, it } from "vitest";
import { createApp } from "../../src/app/server/app.js";
import { memoryBackend } from "../../src/app/server/backend/memory-backend.js";
import { ServiceRuntime } from "../../src/app/server/runtime/service-runtime.js";
import { MAX_BODY_DEPTH, MAX_METADATA_BYTES, MAX_METADATA_DEPTH } from "../../src/protocol/index.js";
import { tooDeepAt } from "../../src/protocol/json-bounds.js";
import { conversationModel } from "./fixtures/agents.js";
import { json } from "./helpers.js";

const runtimes: ServiceRuntime[] = [];
afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((r) => r.close()));
});

function setup() {
  const backend = memoryBackend();
  const runtime = new ServiceRuntime({ backend, agents: [{ name: "a", model: conversationModel() }] });
  runtimes.push(runtime);
  const app = createApp(runtime);
  const post = (path: string, body: string) =>
    app.request(path, { method: "POST", headers: { "content-type": "application/json" }, body });
  const session = async () => ((await json(post("/v1/sessions", "{}"))) as { sessionId: string }).sessionId;
  return { backend, runtime, post, session };
}

/** `{"a":{"a":…1…}}` with `depth` objects, as text: JSON.stringify itself cannot build thousands of levels. */
const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;

/** A reply request whose one user message carries `metadata` (JSON text). */
function replyWithMetadata(metadata: string): string {
  const msg = {
    id: "m1",
    name: "user",
    role: "user",
    content: [{ type: "text", id: "t1", text: "hi" }],
    metadata: "METADATA",
    createdAt: new Date().toISOString(),
  };
  return JSON.stringify({ input: msg }).replace('"METADATA"', metadata);
}

describe("message metadata is bounded at the boundary", () => {
  it("metadata nested 5,000 deep: 400 naming the field and the limit, and nothing is stored or run", async () => {
    const { backend, runtime, post, session } = setup();
    const id = await session();
    const response = await post(`/v1/sessions/${id}/replies`, replyWithMetadata(nested(5000)));
    expect(response.status).toBe(400);
    const body = await json(response);
    expect(body.error.type).toBe("invalid_request");
    expect(body.error.message).toContain("input.metadata");
    expect(body.error.message).toContain(`deeper than ${MAX_METADATA_DEPTH} levels`);
    expect(await backend.events.lastSeq(id)).toBe(0);
    expect(await runtime.messages("local", id)).toEqual([]);
  });

  it(`metadata ${MAX_METADATA_DEPTH} deep is accepted (one more is not)`, async () => {
    const { post, session } = setup();
    const id = await session();
    expect(
      (await post(`/v1/sessions/${id}/replies`, replyWithMetadata(nested(MAX_METADATA_DEPTH)))).status,
    ).toBe(202);
    const other = await session();
    const over = await post(
      `/v1/sessions/${other}/replies`,
      replyWithMetadata(nested(MAX_METADATA_DEPTH + 1)),
    );
    expect(over.status).toBe(400);
    expect((await json(over)).error.message).toContain("input.metadata");
  });

  it("metadata over the size bound: 400 with its size and the limit; at the bound: accepted", async () => {
    const { post, session } = setup();
    const id = await session();
    // {"x":"…"} is 8 bytes plus the string
    const fits = JSON.stringify({ x: "y".repeat(MAX_METADATA_BYTES - 8) });
    expect((await post(`/v1/sessions/${id}/replies`, replyWithMetadata(fits))).status).toBe(202);
    const other = await session();
    const big = JSON.stringify({ x: "é".repeat(MAX_METADATA_BYTES / 2) }); // 2 bytes each in UTF-8
    const response = await post(`/v1/sessions/${other}/replies`, replyWithMetadata(big));
    expect(response.status).toBe(400);
    const { message } = (await json(response)).error;
    expect(message).toContain("input.metadata");
    expect(message).toContain(`over the limit of ${MAX_METADATA_BYTES}`);
  });

  it("metadata of one message in a list is named by its index", async () => {
    const { post, session } = setup();
    const id = await session();
    const one = JSON.parse(replyWithMetadata("{}")).input;
    const body = JSON.stringify({ input: [one, { ...one, id: "m2", metadata: "METADATA" }] }).replace(
      '"METADATA"',
      nested(100),
    );
    const response = await post(`/v1/sessions/${id}/replies`, body);
    expect(response.status).toBe(400);
    expect((await json(response)).error.message).toContain("input[1].metadata");
  });

  it("any other free-form field of a run-starting body is bounded too (tool results' providerData)", async () => {
    const { post, session } = setup();
    const id = await session();
    const body = JSON.stringify({
      toolResults: [
        { type: "tool_result", id: "c1", name: "t", output: "ok", state: "success", providerData: "DEEP" },
      ],
    }).replace('"DEEP"', nested(5000));
    const response = await post(`/v1/sessions/${id}/external-results`, body);
    expect(response.status).toBe(400);
    const { message } = (await json(response)).error;
    expect(message).toContain("toolResults[0].providerData");
    expect(message).toContain(`deeper than ${MAX_BODY_DEPTH} levels`);
  });
});

describe("tooDeepAt", () => {
  it("counts the value itself as level 1 and finds the first path too deep, without recursing", () => {
    expect(tooDeepAt({ a: { b: 1 } }, 2)).toBeUndefined();
    expect(tooDeepAt({ a: { b: {} } }, 2)).toEqual(["a", "b"]);
    expect(tooDeepAt([1, [2, [3]]], 2)).toEqual([1, 1]);
    expect(tooDeepAt("text", 0)).toBeUndefined();
    expect(tooDeepAt(JSON.parse(nested(100_000)), 32)).toHaveLength(32);
  });
});
