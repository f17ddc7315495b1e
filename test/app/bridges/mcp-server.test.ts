import { request } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_MCP_SESSIONS_PER_USER, mcpRoutes } from "../../../src/app/bridges/index.js";
import { createApp } from "../../../src/app/server/app.js";
import { memoryBackend } from "../../../src/app/server/backend/memory-backend.js";
import { ServiceRuntime } from "../../../src/app/server/runtime/service-runtime.js";
import { textOf } from "../../../src/message/index.js";
import { ScriptedModel, type ScriptedStep } from "../../../src/testing/index.js";
import { recordedNotes } from "../helpers.js";

const TOKENS = new Map([
  ["alice-token", "alice"],
  ["bob-token", "bob"],
]);

interface Server {
  url: URL;
  runtime: ServiceRuntime;
  notes: string[];
  close(): Promise<void>;
}
const servers: Server[] = [];
const clients: Client[] = [];
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(steps: ScriptedStep[]): Promise<Server> {
  const { notes, writeNote } = recordedNotes();
  const runtime = new ServiceRuntime({
    backend: memoryBackend(),
    agents: [
      { name: "helper", model: new ScriptedModel(steps, { chunkSize: 4 }), toolkit: [writeNote] },
      { name: "writer", model: new ScriptedModel([{ text: "unused" }]) },
    ],
    heartbeatMs: 20,
  });
  const app = createApp(runtime, { mounts: [mcpRoutes(runtime)], tokens: TOKENS });
  const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const { port } = server.address() as AddressInfo;
  const handle: Server = {
    url: new URL(`http://127.0.0.1:${port}/v1/mcp`),
    runtime,
    notes,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await runtime.close();
    },
  };
  servers.push(handle);
  return handle;
}

async function connect(server: Server, token: string, options: { elicit?: boolean } = {}): Promise<Client> {
  const client = new Client(
    { name: "test-host", version: "1.0.0" },
    { capabilities: options.elicit ? { elicitation: {} } : {} },
  );
  const transport = new StreamableHTTPClientTransport(server.url, {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  clients.push(client);
  return client;
}

/** A POST with its own Host header (fetch sets Host itself), answering the status. */
function postWithHost(
  url: URL,
  host: string,
  headers: Record<string, string>,
  body: string,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", headers: { ...headers, host } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.once("error", reject);
    req.end(body);
  });
}

type Meta = { agentscope: { session_id: string; status: string; pending?: Array<{ tool_call_id: string }> } };

describe("the MCP server over Streamable HTTP with the MCP SDK's client", () => {
  it("lists each agent as a tool and calls one, streaming the reply as progress notifications", async () => {
    const server = await start([{ text: "The answer is forty-two." }]);
    const client = await connect(server, "alice-token");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(["helper", "writer"]);
    expect(tools[0]?.inputSchema).toMatchObject({ required: ["prompt"] });

    const progress: string[] = [];
    const result = await client.callTool(
      { name: "helper", arguments: { prompt: "What is it?" } },
      undefined,
      {
        onprogress: (p) => void progress.push(p.message ?? ""),
      },
    );
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: "text", text: "The answer is forty-two." }]);
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.join("")).toBe("The answer is forty-two.");

    const meta = result._meta as Meta;
    expect(meta.agentscope.status).toBe("completed");
    const history = await server.runtime.messages("alice", meta.agentscope.session_id);
    expect(history.map(textOf)).toEqual(["What is it?", "The answer is forty-two."]);
  });

  it("asks for a confirmation through elicitation when the host supports it", async () => {
    const server = await start([
      { toolCalls: [{ id: "w1", name: "write_note", input: { text: "buy milk" } }] },
      { text: "Saved." },
    ]);
    const client = await connect(server, "alice-token", { elicit: true });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params.message);
      return { action: "accept", content: { approved: true } };
    });
    const result = await client.callTool({ name: "helper", arguments: { prompt: "note buy milk" } });
    expect(asked).toEqual([expect.stringContaining('Allow write_note({"text":"buy milk"})?')]);
    expect(server.notes).toEqual(["buy milk"]);
    expect(result.content).toEqual([{ type: "text", text: "Saved." }]);
  });

  it.each([
    { action: "accept", content: { approved: "true", input: '{"text":"rm -rf"}' } },
    { action: "accept", content: {} },
    { action: "accept", content: { approved: false } },
    { action: "decline" },
    { action: "cancel" },
  ])(
    "an elicitation answer other than approved: true ($action) refuses the call, and no edit rides along",
    async (answer) => {
      const server = await start([
        { toolCalls: [{ id: "w9", name: "write_note", input: { text: "buy milk" } }] },
        { text: "Not saved." },
      ]);
      const client = await connect(server, "alice-token", { elicit: true });
      client.setRequestHandler(ElicitRequestSchema, () => answer as never);
      await client.callTool({ name: "helper", arguments: { prompt: "note buy milk" } });
      expect(server.notes).toEqual([]);
    },
  );

  it("without elicitation the call returns a pending result that says how to approve", async () => {
    const server = await start([{ toolCalls: [{ id: "w2", name: "write_note", input: { text: "x" } }] }]);
    const client = await connect(server, "alice-token");
    const result = await client.callTool({ name: "helper", arguments: { prompt: "note x" } });
    const meta = result._meta as Meta;
    expect(meta.agentscope).toMatchObject({ status: "waiting", pending: [{ tool_call_id: "w2" }] });
    const text = (result.content as Array<{ text: string }>)[0]!.text;
    expect(text).toContain("[tool call w2]");
    expect(text).toContain(`POST /v1/sessions/${meta.agentscope.session_id}/confirm`);
    expect(server.notes).toEqual([]);
  });

  it("keeps users apart: another user's session is not found, and so is their MCP session", async () => {
    const server = await start([{ text: "mine" }, { text: "other" }]);
    const alice = await connect(server, "alice-token");
    const first = await alice.callTool({ name: "helper", arguments: { prompt: "hi" } });
    const sessionId = (first._meta as Meta).agentscope.session_id;

    const bob = await connect(server, "bob-token");
    const stolen = await bob.callTool({ name: "helper", arguments: { prompt: "hi", session_id: sessionId } });
    expect(stolen.isError).toBe(true);
    expect((stolen.content as Array<{ text: string }>)[0]!.text).toMatch(/does not exist/);

    // Bob's token on Alice's MCP session id is refused before it reaches her connection.
    const aliceSession = (alice.transport as StreamableHTTPClientTransport).sessionId!;
    const response = await fetch(server.url, {
      method: "POST",
      headers: {
        authorization: "Bearer bob-token",
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": aliceSession,
        "mcp-protocol-version": "2025-06-18",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }),
    });
    expect(response.status).toBe(404);
    const unauthenticated = await fetch(server.url, { method: "POST", body: "{}" });
    expect(unauthenticated.status).toBe(401);
    // The service's Host and Origin rules hold here too: a page of another origin, a rebound host name.
    const init = { authorization: "Bearer alice-token", "content-type": "application/json" };
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    const foreign = await fetch(server.url, {
      method: "POST",
      headers: { ...init, origin: "https://evil.example" },
      body,
    });
    expect(foreign.status).toBe(403);
    expect(await postWithHost(server.url, "evil.example", init, body)).toBe(403);
  });

  it("a user keeps a bounded number of MCP sessions open: one more closes their oldest", async () => {
    const server = await start([]);
    const first = await connect(server, "alice-token");
    for (let i = 0; i < MAX_MCP_SESSIONS_PER_USER; i++) await connect(server, "alice-token");
    await connect(server, "bob-token"); // another user's sessions do not count
    await expect(first.listTools()).rejects.toThrow(/not found/);
    expect((await clients.at(-2)!.listTools()).tools).toHaveLength(2);
  });
});
