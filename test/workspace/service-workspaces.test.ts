import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../../src/app/server/start-server.js";
import type { Msg } from "../../src/message/index.js";
import { blocksOf } from "../../src/message/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { reportMissingService } from "../support/services.js";
import { bubblewrapMissing, tempDir } from "./helpers.js";

const missing = await bubblewrapMissing();

describe("the service gives each session its own sandboxed workspace", () => {
  if (missing) return reportMissingService(missing);
  const { dir: dataDir, cleanup } = tempDir("agentscope-service-");
  const servers: RunningServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
    cleanup();
  });
  const aliceRoot = join(dataDir, "workspaces", "sessions", "s-alice-1");
  const model = new ScriptedModel([
    { toolCalls: [{ name: "Bash", input: { command: "echo alice-data > notes.txt && pwd" } }] },
    { text: "written" },
    {
      toolCalls: [
        { name: "Bash", input: { command: `pwd; cat notes.txt; cat ${aliceRoot}/notes.txt; ls -A` } },
        { name: "Read", input: { path: `${aliceRoot}/notes.txt` } },
        { name: "Read", input: { path: "../s-alice-1/notes.txt" } },
      ],
    },
    { text: "looked" },
  ]);
  /** First through startServer's option, after the restart through the config file's `workspaces`. */
  const start = async (from: "option" | "config") => {
    const agents = [
      {
        name: "worker",
        model,
        tools: ["Bash", "Read", "Write"] as ("Bash" | "Read" | "Write")[],
        permission: { mode: "bypass" as const },
      },
    ];
    const server = await startServer({
      config: from === "config" ? { agents, workspaces: { dataDir, sandbox: true } } : { agents },
      store: `sqlite:${join(dataDir, "state.db")}`,
      port: 0,
      tokensEnv: "tok-alice:alice,tok-bob:bob",
      withoutOptionalRoutes: true,
      ...(from === "option" ? { workspaces: { dataDir, sandbox: {} } } : {}),
    });
    servers.push(server);
    return server;
  };
  const as = (token: string, init: RequestInit = {}): RequestInit => ({
    ...init,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...init.headers },
  });
  const call = async (url: string, token: string, init: RequestInit = {}) => fetch(url, as(token, init));
  const reply = async (url: string, token: string, session: string, text: string) => {
    const res = await call(`${url}/v1/sessions/${session}/replies`, token, {
      method: "POST",
      body: JSON.stringify({ text }),
      headers: { accept: "text/event-stream" },
    });
    expect(res.status).toBe(200);
    await res.text();
    const { messages } = (await (await call(`${url}/v1/sessions/${session}/messages`, token)).json()) as {
      messages: Msg[];
    };
    return blocksOf(messages.at(-1)!, "tool_result").map((result) => ({
      state: result.state,
      output: String(result.output),
    }));
  };

  it("runs each session's tools in its own workspace; another session sees none of it", async () => {
    const { url } = await start("option");
    for (const [token, sessionId] of [
      ["tok-alice", "alice-1"],
      ["tok-bob", "bob-1"],
    ] as const) {
      const res = await call(`${url}/v1/sessions`, token, {
        method: "POST",
        body: JSON.stringify({ sessionId }),
      });
      expect(res.status).toBe(201);
    }
    expect(await reply(url, "tok-alice", "alice-1", "write")).toEqual([
      { state: "success", output: `${aliceRoot}\n` },
    ]);
    expect(existsSync(join(aliceRoot, "notes.txt"))).toBe(true);

    const [bob, readAbsolute, readRelative] = await reply(url, "tok-bob", "bob-1", "look");
    expect(readAbsolute).toEqual({
      state: "denied",
      output: expect.stringContaining("outside this session's workspace"),
    });
    expect(readRelative?.state).toBe("denied");
    expect(JSON.stringify([readAbsolute, readRelative])).not.toContain("alice-data");
    expect(bob!.state).toBe("success");
    expect(bob!.output).toContain(join(dataDir, "workspaces", "sessions", "s-bob-1"));
    expect(bob!.output).not.toContain("alice-data");
    expect(bob!.output).toMatch(/notes\.txt: No such file or directory/);
  });

  it("lists and downloads a session's files for its owner only", async () => {
    const { url } = servers[0]!;
    const listing = await call(`${url}/v1/sessions/alice-1/workspace/files`, "tok-alice");
    expect(listing.status).toBe(200);
    const body = (await listing.json()) as {
      path: string;
      entries: Array<{ path: string; type: string; size: number }>;
    };
    expect(body.path).toBe(".");
    expect(body.entries.map(({ path, type, size }) => ({ path, type, size }))).toEqual([
      { path: "notes.txt", type: "file", size: 11 },
    ]);
    const download = await call(`${url}/v1/sessions/alice-1/workspace/file?path=notes.txt`, "tok-alice");
    expect(download.status).toBe(200);
    expect(download.headers.get("content-disposition")).toContain("notes.txt");
    expect(await download.text()).toBe("alice-data\n");

    expect((await call(`${url}/v1/sessions/alice-1/workspace/files`, "tok-bob")).status).toBe(404);
    expect((await call(`${url}/v1/sessions/alice-1/workspace/file?path=notes.txt`, "tok-bob")).status).toBe(
      404,
    );
    expect((await fetch(`${url}/v1/sessions/alice-1/workspace/files`)).status).toBe(401);
  });

  it("answers a bad path with a clear 4xx", async () => {
    const { url } = servers[0]!;
    const outside = await call(`${url}/v1/sessions/alice-1/workspace/file?path=../s-bob-1/x`, "tok-alice");
    expect(outside.status).toBe(400);
    expect(((await outside.json()) as { error: { message: string } }).error.message).toMatch(
      /outside the workspace/,
    );
    expect((await call(`${url}/v1/sessions/alice-1/workspace/file?path=nope.txt`, "tok-alice")).status).toBe(
      404,
    );
    expect((await call(`${url}/v1/sessions/alice-1/workspace/file`, "tok-alice")).status).toBe(400);
    expect((await call(`${url}/v1/sessions/alice-1/workspace/files?path=nope`, "tok-alice")).status).toBe(
      404,
    );
  });

  it("keeps workspaces across a restart and removes one with its session", async () => {
    await servers[0]!.close();
    const { url } = await start("config");
    const listing = await call(`${url}/v1/sessions/alice-1/workspace/files`, "tok-alice");
    expect(
      ((await listing.json()) as { entries: Array<{ path: string }> }).entries.map((e) => e.path),
    ).toEqual(["notes.txt"]);
    expect((await call(`${url}/v1/sessions/alice-1`, "tok-alice", { method: "DELETE" })).status).toBe(204);
    expect(existsSync(aliceRoot)).toBe(false);
    expect(existsSync(join(dataDir, "workspaces", "sessions", "s-bob-1"))).toBe(true);
  });
});
