import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app/server/app.js";
import { memoryBackend } from "../../src/app/server/backend/memory-backend.js";
import { parseServiceConfig } from "../../src/app/server/config/service-config.js";
import type { ServiceLogEntry } from "../../src/app/server/runtime/service-log.js";
import { ServiceRuntime } from "../../src/app/server/runtime/service-runtime.js";
import { ScriptedModel } from "../../src/testing/index.js";

const agent = (extra: Record<string, unknown>) => ({
  agents: [{ name: "a", model: "openai:gpt-4o-mini", ...extra }],
});
const errorOf = (config: unknown): string => {
  try {
    parseServiceConfig(config);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error("the config was accepted");
};

describe("config errors list the valid values", () => {
  it("a bad tool name names the built-in tools and the closest one", () => {
    expect(errorOf(agent({ tools: ["bash"] }))).toBe(
      'config: agents[0].tools[0]: "bash" is not a built-in tool; did you mean "Bash"? (known: Bash, Read, Write, Edit, Glob, Grep); or pass a Tool object in a TypeScript config',
    );
    expect(errorOf(agent({ tools: ["Read", "WebSearch"] }))).toMatch(
      /tools\[1\]: "WebSearch" is not a built-in tool \(known: Bash, Read, Write, Edit, Glob, Grep\)/,
    );
    expect(errorOf(agent({ tools: [42] }))).toMatch(
      /tools\[0\]: a number is not a tool \(built-in tools: Bash,/,
    );
    expect(errorOf(agent({ tools: [{ name: "x" }] }))).toMatch(/tools\[0\]: an object is not a tool/);
  });

  it("an unknown key gets a did-you-mean among the keys of that object", () => {
    expect(errorOf(agent({ toolz: ["Bash"] }))).toMatch(
      /agents\[0\]: unknown key "toolz"; did you mean "tools"\? \(known: name, systemPrompt, model, tools,/,
    );
    expect(
      errorOf(agent({ mcpServers: [{ name: "fs", transport: "stdio", command: "npx", cwdd: "/" }] })),
    ).toMatch(/mcpServers\[0\]: unknown key "cwdd"; did you mean "cwd"\?/);
    expect(errorOf({ ...agent({}), corz: {} })).toMatch(
      /\(root\): unknown key "corz"; did you mean "cors"\?/,
    );
  });

  it("`toolkit` in a config is told the config's name, `tools`", () => {
    expect(errorOf(agent({ toolkit: ["Bash"] }))).toBe(
      'config: agents[0]: unknown key "toolkit": the config calls it "tools" (`toolkit` is the Agent constructor\'s name)',
    );
  });
});

describe("a refused CORS origin", () => {
  const app = (log: ServiceLogEntry[]) =>
    createApp(
      new ServiceRuntime({
        backend: memoryBackend(),
        agents: [{ name: "main", model: new ScriptedModel([{ text: "hi" }]) }],
      }),
      { corsOrigins: ["https://app.example"], log: (entry) => log.push(entry) },
    );
  const post = (origin: string) =>
    new Request("http://127.0.0.1/v1/sessions", {
      method: "POST",
      headers: { origin, host: "127.0.0.1", "content-type": "application/json" },
      body: "{}",
    });

  it("is logged once per origin, with the config line that allows it", async () => {
    const log: ServiceLogEntry[] = [];
    const service = app(log);
    expect((await service.fetch(post("https://evil.example"))).status).toBe(403);
    expect((await service.fetch(post("https://evil.example"))).status).toBe(403);
    const preflight = new Request("http://127.0.0.1/v1/sessions", {
      method: "OPTIONS",
      headers: { origin: "https://other.example", host: "127.0.0.1" },
    });
    expect((await service.fetch(preflight)).status).toBe(403);
    expect(log).toEqual([
      {
        level: "warn",
        message:
          'refused POST /v1/sessions from the origin https://evil.example (CORS): if that page should use this API, add it to cors.origins in the config, e.g. cors: { origins: ["https://evil.example"] }',
      },
      expect.objectContaining({
        level: "warn",
        message: expect.stringContaining("OPTIONS /v1/sessions from the origin https://other.example"),
      }),
    ]);
  });

  it("a listed origin and a request without Origin log nothing", async () => {
    const log: ServiceLogEntry[] = [];
    const service = app(log);
    expect((await service.fetch(post("https://app.example"))).status).not.toBe(403);
    expect(
      (await service.fetch(new Request("http://127.0.0.1/v1/health", { headers: { host: "127.0.0.1" } })))
        .status,
    ).toBe(200);
    expect(log).toEqual([]);
  });
});
