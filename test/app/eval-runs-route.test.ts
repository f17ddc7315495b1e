import { copyFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, parseServiceConfig } from "../../src/app/server/config/service-config.js";
import { type RunningServer, startServer } from "../../src/app/server/start-server.js";
import { AgentScopeClient } from "../../src/client/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { writeEvalRuns } from "./fixtures/eval-reports.js";

const agents = [{ name: "main", model: new ScriptedModel([{ text: "hi" }]) }];

const serve = (extra: object) =>
  startServer({
    config: parseServiceConfig({ agents, ...extra }),
    store: "memory:",
    port: 0,
    tokensEnv: "t-ann:ann",
    workspaces: false,
    withoutOptionalRoutes: true,
  });

describe("GET /v1/evals/runs on a served service", () => {
  let dir: string;
  let server: RunningServer;
  let client: AgentScopeClient;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "eval-runs-"));
    await writeEvalRuns(join(dir, "reports"));
    await writeFile(join(dir, "reports", "notes.txt"), "not a report");
    server = await serve({ evals: { reports: join(dir, "reports") } });
    client = new AgentScopeClient({ baseUrl: server.url, token: "t-ann" });
  }, 30_000);
  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("lists the runs the eval wrote, newest first, with their pass and fail counts", async () => {
    const list = await client.route("GET /v1/evals/runs");
    expect(list.hint).toBeUndefined();
    expect(list.truncated).toBe(false);
    expect(list.runs.map((run) => [run.id, run.name, run.runs, run.passed, run.failed])).toEqual([
      ["head", "head", 2, 1, 1],
      ["base", "base", 1, 1, 0],
    ]);
    expect(list.runs[0]).toMatchObject({ cases: 2, casesPassed: 1 });
    expect(Date.parse(list.runs[0]!.createdAt)).toBeGreaterThanOrEqual(Date.parse(list.runs[1]!.createdAt));
  });

  it("answers one run's report with the failing check's reason", async () => {
    const { run, report } = await client.route("GET /v1/evals/runs/{id}", { params: { id: "head" } });
    expect(run).toMatchObject({ id: "head", failed: 1 });
    expect(report.format).toBe("agentscope-eval/1");
    const failing = report.runs.find((r) => !r.pass)!;
    expect(failing.caseId).toBe("searches");
    expect(failing.scores.find((s) => !s.pass)?.scorer).toBe("tool_called:search");
    expect(failing.scores.find((s) => !s.pass)?.reason).toContain("search");
  });

  it("refuses ids that are not a plain name from the list, 404 for an unknown one, 401 without a token", async () => {
    // A real report one level above the reports directory: never reachable.
    await copyFile(join(dir, "reports", "head", "result.json"), join(dir, "outside.json"));
    for (const id of ["../outside.json", "../reports/head", ".hidden", "head/result.json"]) {
      const answer = await fetch(`${server.url}/v1/evals/runs/${encodeURIComponent(id)}`, {
        headers: { authorization: "Bearer t-ann" },
      });
      expect(answer.status, id).toBe(400);
      expect((await answer.json()).error.type, id).toBe("invalid_request");
    }
    await expect(client.route("GET /v1/evals/runs/{id}", { params: { id: "nope" } })).rejects.toMatchObject({
      status: 404,
      type: "not_found",
    });
    await expect(
      client.route("GET /v1/evals/runs/{id}", { params: { id: "notes.txt" } }),
    ).rejects.toMatchObject({ status: 404 });
    expect((await fetch(`${server.url}/v1/evals/runs`)).status).toBe(401);
  });
});

describe("the config's evals key", () => {
  it("takes { reports }, naming the bad field otherwise; a file in place of the directory stops the start", async () => {
    expect(parseServiceConfig({ agents, evals: { reports: "r" } }).evals).toEqual({ reports: "r" });
    expect(() => parseServiceConfig({ agents, evals: { reports: "" } })).toThrow(
      /config: evals\.reports: .*directory of eval reports/,
    );
    expect(() => parseServiceConfig({ agents, evals: { dir: "r" } })).toThrow(ConfigError);
    const file = join(tmpdir(), `eval-runs-file-${process.pid}`);
    await writeFile(file, "x");
    await expect(serve({ evals: { reports: file } })).rejects.toThrow(
      /evals\.reports: .* is not a directory/,
    );
    await rm(file, { force: true });
  });

  it("without it the list is empty with a hint, and a run is a 404 saying how to turn it on", async () => {
    const server = await serve({});
    try {
      const client = new AgentScopeClient({ baseUrl: server.url, token: "t-ann" });
      const list = await client.route("GET /v1/evals/runs");
      expect(list.runs).toEqual([]);
      expect(list.hint).toContain("evals: { reports:");
      expect(list.hint).toContain("agentscope eval");
      await expect(client.route("GET /v1/evals/runs/{id}", { params: { id: "head" } })).rejects.toMatchObject(
        { status: 404, message: expect.stringContaining("evals: { reports:") },
      );
    } finally {
      await server.close();
    }
  });
});
