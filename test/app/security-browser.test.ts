import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleRoutes } from "../../src/app/console/index.js";
import { createApp } from "../../src/app/server/app.js";
import { memoryBackend } from "../../src/app/server/backend/memory-backend.js";
import { ServiceRuntime } from "../../src/app/server/runtime/service-runtime.js";
import { conversationModel, recordTool } from "./fixtures/agents.js";

/** Page functions run in the browser; this is all of the DOM they use. */
declare const document: {
  querySelectorAll(selector: string): Array<{ getAttribute(name: string): string | null }>;
};

const CHROMIUM = "/usr/bin/chromium";
const required = process.env.AGENTSCOPE_REQUIRE_SERVICES === "1";
const available = existsSync(CHROMIUM);
if (!available && !required)
  process.stderr.write(
    `browser security tests skipped: ${CHROMIUM} is missing (apt-get install -y chromium)\n`,
  );

function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)),
  );
}

describe.skipIf(!available && !required)("a page on another origin or host, in headless Chromium", () => {
  let runtime: ServiceRuntime;
  let service: Server;
  let evil: Server;
  let browser: Browser;
  let page: Page;
  let target: string;
  let port: number;
  let evilBase: string;
  let sessionId: string;

  beforeAll(async () => {
    runtime = new ServiceRuntime({
      backend: memoryBackend(),
      agents: [{ name: "main", model: conversationModel(), toolkit: [recordTool()] }],
    });
    const app = createApp(runtime, { mounts: [consoleRoutes()] });
    service = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }) as Server;
    await new Promise<void>((resolve) => service.once("listening", () => resolve()));
    port = (service.address() as AddressInfo).port;
    target = `http://127.0.0.1:${port}`;
    sessionId = (await runtime.createSession("local", { sessionId: "victim" })).sessionId;
    // The attacker's site: another origin (another port), a blank page to run scripts from.
    evil = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<!doctype html><title>evil</title>");
    });
    evilBase = `http://127.0.0.1:${await listen(evil)}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--no-sandbox",
        "--headless",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-quic",
        "--no-first-run",
        // DNS rebinding, simulated: the attacker's name now resolves to the loopback address.
        "--host-resolver-rules=MAP rebind.example 127.0.0.1",
      ],
    });
    page = await browser.newPage();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    service?.closeAllConnections();
    await new Promise<void>((resolve) => (service ? service.close(() => resolve()) : resolve()));
    await new Promise<void>((resolve) => (evil ? evil.close(() => resolve()) : resolve()));
    await runtime?.close();
  });

  it("cannot create a session or start a reply with requests the browser sends without asking", async () => {
    await page.goto(evilBase);
    const outcomes = await page.evaluate(
      async ({ target, sessionId }) => {
        const attempts = [
          { path: "/v1/sessions", body: "{}", type: "text/plain" },
          { path: `/v1/sessions/${sessionId}/replies`, body: '{"text":"list my files"}', type: "text/plain" },
          { path: `/v1/sessions/${sessionId}/replies`, body: undefined, type: undefined },
        ];
        const results: string[] = [];
        for (const attempt of attempts) {
          const init: RequestInit = { method: "POST", mode: "no-cors" };
          if (attempt.body !== undefined) init.body = attempt.body;
          if (attempt.type) init.headers = { "content-type": attempt.type };
          const response = await fetch(target + attempt.path, init);
          results.push(response.type);
        }
        return results;
      },
      { target, sessionId },
    );
    expect(outcomes).toEqual(["opaque", "opaque", "opaque"]);
    expect((await runtime.listSessions("local")).sessions.map((s) => s.sessionId)).toEqual(["victim"]);
    expect(await runtime.backend.events.lastSeq(sessionId)).toBe(0);
    expect(await runtime.messages("local", sessionId)).toEqual([]);
  });

  it("cannot send JSON either: the preflight finds no CORS answer, so nothing is sent", async () => {
    await page.goto(evilBase);
    const error = await page.evaluate(async (target) => {
      try {
        await fetch(`${target}/v1/sessions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: "{}",
        });
        return "sent";
      } catch (e) {
        return (e as Error).name;
      }
    }, target);
    expect(error).toBe("TypeError");
    expect((await runtime.listSessions("local")).sessions).toHaveLength(1);
  });

  it("cannot read the session list or a session", async () => {
    await page.goto(evilBase);
    const reads = await page.evaluate(
      async ({ target, sessionId }) => {
        const out: string[] = [];
        for (const path of ["/v1/sessions", `/v1/sessions/${sessionId}/messages`]) {
          try {
            const response = await fetch(target + path);
            out.push(await response.text());
          } catch (e) {
            out.push((e as Error).name);
          }
        }
        return out;
      },
      { target, sessionId },
    );
    expect(reads).toEqual(["TypeError", "TypeError"]);
  });

  it("refuses a rebinding host name: the API and the console answer 403 and leak nothing", async () => {
    for (const path of ["/v1/sessions", "/"]) {
      const response = await page.goto(`http://rebind.example:${port}${path}`);
      expect(response?.status()).toBe(403);
      expect(await response?.text()).not.toContain("victim");
    }
    // From that page the attacker can fetch "same-origin" all it likes: still refused.
    const status = await page.evaluate(async () => (await fetch("/v1/sessions")).status);
    expect(status).toBe(403);
  });

  it("the console shows no javascript: link from a data block, but keeps an https one", async () => {
    const input = [
      {
        id: "m-links",
        name: "user",
        role: "user",
        createdAt: new Date().toISOString(),
        metadata: {},
        content: [
          {
            type: "data",
            id: "d1",
            name: "bad",
            source: { type: "url", url: "javascript:alert(1)", mediaType: "text/html" },
          },
          { type: "data", id: "d2", name: "tabbed", source: { type: "url", url: "java\tscript:alert(2)" } },
          { type: "data", id: "d3", name: "good", source: { type: "url", url: "https://example.com/a.pdf" } },
        ],
      },
    ];
    const linked = await runtime.createSession("local", { sessionId: "links" });
    await runtime.startReply("local", linked.sessionId, input as never).then((run) => run.done);
    await page.goto(target);
    await page.click('li.session[data-id="links"]');
    await page.waitForSelector(".msg.user .attachment");
    const hrefs = await page.evaluate(() =>
      [...document.querySelectorAll(".msg.user .attachment")].map((node) => node.getAttribute("href")),
    );
    expect(hrefs).toEqual([null, null, "https://example.com/a.pdf"]);
  });
});
