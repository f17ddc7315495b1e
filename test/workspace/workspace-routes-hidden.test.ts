import { linkSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type RunningServer, startServer } from "../../src/app/server/start-server.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { tempDir } from "./helpers.js";

// The workspace routes show a session's files the way its file tools see them.
const { dir, cleanup } = tempDir("agentscope-routes-");
let server: RunningServer;
let sessionId: string;
const headers = { authorization: "Bearer tok-alice", "content-type": "application/json" };
const get = (path: string) => fetch(`${server.url}/v1/sessions/${sessionId}${path}`, { headers });

beforeAll(async () => {
  server = await startServer({
    config: { agents: [{ name: "main", model: new ScriptedModel([{ text: "hi" }]) }] },
    store: "memory:",
    port: 0,
    tokensEnv: "tok-alice:alice",
    withoutOptionalRoutes: true,
    workspaces: { dataDir: join(dir, "data"), sandbox: false },
  });
  const created = await fetch(`${server.url}/v1/sessions`, { method: "POST", headers, body: "{}" });
  ({ sessionId } = (await created.json()) as { sessionId: string });
  expect((await get("/workspace/files")).status).toBe(200); // creates the workspace
  const root = join(dir, "data", "workspaces", "sessions", `s-${sessionId}`);
  writeFileSync(join(root, "notes.txt"), "fine");
  writeFileSync(join(root, ".env"), "TOKEN=secret");
  mkdirSync(join(root, ".kube"));
  writeFileSync(join(root, ".kube", "config"), "token: secret");
  writeFileSync(join(dir, "host-secret.txt"), "secret");
  linkSync(join(dir, "host-secret.txt"), join(root, "copy.txt"));
});
afterAll(async () => {
  await server?.close();
  cleanup();
});

it("the listing leaves out the hidden credential paths", async () => {
  const body = (await (await get("/workspace/files?recursive=1")).json()) as { entries: { path: string }[] };
  expect(body.entries.map((entry) => entry.path).sort()).toEqual(["copy.txt", "notes.txt"]);
});

it("a hidden path or a hard-linked file is not downloaded", async () => {
  expect((await get("/workspace/file?path=notes.txt")).status).toBe(200);
  for (const [path, why] of [
    [".env", /hidden/],
    [".kube/config", /hidden/],
    ["copy.txt", /hard link/],
  ] as const) {
    const response = await get(`/workspace/file?path=${encodeURIComponent(path)}`);
    expect(response.status, path).toBe(400);
    expect(((await response.json()) as { error: { message: string } }).error.message, path).toMatch(why);
  }
});
