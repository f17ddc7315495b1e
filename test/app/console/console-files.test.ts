import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../../../src/app/server/start-server.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import { expectAccessible } from "./browser-kit.js";

const CHROMIUM = "/usr/bin/chromium";
const required = process.env.AGENTSCOPE_REQUIRE_SERVICES === "1";
const available = existsSync(CHROMIUM);
if (!available && !required)
  process.stderr.write(`console files tests skipped: ${CHROMIUM} is missing (apt-get install -y chromium)\n`);

const SHOTS = join(process.cwd(), "test-output", "console");
const TOKEN = "tok-files-alice";
const REPORT = "# Report\nall good: ✓\n";

/**
 * With workspaces, a service whose agent writes report.md with its Write tool on the first message;
 * without, one that only answers (a Write there would land in the test's working directory).
 */
const serve = (dataDir?: string) =>
  startServer({
    config: {
      agents: [
        dataDir
          ? {
              name: "writer",
              model: new ScriptedModel([
                { toolCalls: [{ name: "Write", input: { path: "report.md", content: REPORT } }] },
                { text: "Wrote the report." },
              ]),
              tools: ["Write"],
              permission: { mode: "bypass" },
            }
          : { name: "writer", model: new ScriptedModel([{ text: "No workspace here." }]) },
      ],
    },
    store: "memory:",
    port: 0,
    tokensEnv: `${TOKEN}:alice`,
    workspaces: dataDir ? { dataDir } : false,
  });

describe.skipIf(!available && !required)("console Files panel in headless Chromium", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "agentscope-console-files-"));
  let withWorkspaces: RunningServer;
  let without: RunningServer;
  let browser: Browser;
  let context: BrowserContext;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    withWorkspaces = await serve(dataDir);
    without = await serve();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking"],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await withWorkspaces?.close();
    await without?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  afterEach(async () => {
    await context?.close();
    expect(pageErrors.splice(0)).toEqual([]);
  });

  /** The console of `server`, signed in with the token (kept in localStorage, as the settings form does). */
  async function open(server: RunningServer): Promise<Page> {
    context = await browser.newContext({ viewport: { width: 1400, height: 860 }, reducedMotion: "reduce" });
    await context.addInitScript((token) => localStorage.setItem("agentscope.token", token), TOKEN);
    const page = await context.newPage();
    page.on("pageerror", (error) => pageErrors.push(error.message));
    await page.goto(server.url);
    await page.waitForSelector("#composer");
    return page;
  }

  async function replyOnce(page: Page, text: string, answer = "Wrote the report."): Promise<string> {
    await page.fill("#input", text);
    await page.press("#input", "Enter");
    await page.waitForSelector(`.msg.assistant >> text=${answer}`);
    await page.waitForSelector("body[data-phase='idle']");
    return decodeURIComponent(/#\/s\/(.+)$/.exec(page.url())?.[1] ?? "");
  }

  it("lists the session's workspace after a reply, opens folders and downloads a file through a blob URL", async () => {
    const page = await open(withWorkspaces);
    const requests: Array<{ url: string; authorization: string | undefined }> = [];
    page.on("request", (request) =>
      requests.push({ url: request.url(), authorization: request.headers().authorization }),
    );
    const toggle = page.locator("#workspace-toggle");
    const panel = page.locator("#workspace");
    await toggle.click();
    expect(await toggle.getAttribute("aria-expanded")).toBe("true");
    await expect.poll(() => panel.textContent()).toContain("Start a chat to see its workspace.");

    // The agent writes report.md; the open panel lists it once the reply ends.
    const sessionId = await replyOnce(page, "write the report");
    expect(sessionId).not.toBe("");
    const report = panel.locator('li[data-path="report.md"]');
    await report.waitFor();
    expect(await report.textContent()).toContain(`${Buffer.byteLength(REPORT)} B`);

    // A folder written behind the agent's back shows after reopening the panel, and opens on click.
    const root = join(dataDir, "workspaces", "sessions", `s-${sessionId}`);
    mkdirSync(join(root, "data"), { recursive: true });
    writeFileSync(join(root, "data", "q1.csv"), "quarter,total\nq1,42\n");
    await page.click("#workspace-close");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("workspace-toggle");
    await toggle.click();
    await page.getByRole("button", { name: "Open folder data" }).click();
    await panel.locator('li[data-path="data/q1.csv"]').waitFor();
    expect(await panel.locator(".workspace-dir").textContent()).toBe("/data");
    const csv = page.waitForEvent("download");
    await page.getByRole("button", { name: "Download q1.csv" }).click();
    const csvDownload = await csv;
    expect(csvDownload.suggestedFilename()).toBe("q1.csv");
    expect(readFileSync(await csvDownload.path(), "utf8")).toBe("quarter,total\nq1,42\n");
    await page.screenshot({ path: join(SHOTS, "files-folder.png") });
    await page.getByRole("button", { name: "Up to the parent folder" }).click();
    await report.waitFor();

    // A preview shows the text under its row (fetched with the token too), and hides again.
    await page.getByRole("button", { name: "Preview report.md" }).click();
    await expect.poll(() => report.locator(".file-preview pre").textContent()).toBe(REPORT);
    await expectAccessible(page);
    await page.screenshot({ path: join(SHOTS, "files-preview.png") });
    await page.getByRole("button", { name: "Preview report.md" }).click();
    expect(await report.locator(".file-preview").count()).toBe(0);

    const download = page.waitForEvent("download");
    await page.getByRole("button", { name: "Download report.md" }).click();
    const saved = await download;
    expect(saved.url()).toMatch(/^blob:/);
    expect(readFileSync(await saved.path(), "utf8")).toBe(REPORT);

    // The token went in the Authorization header of the file requests, never in a URL.
    const fileRequests = requests.filter((r) => r.url.includes("/workspace/file?"));
    expect(fileRequests.map((r) => r.authorization)).toEqual([
      `Bearer ${TOKEN}`,
      `Bearer ${TOKEN}`,
      `Bearer ${TOKEN}`,
    ]);
    expect(requests.some((r) => r.url.includes(TOKEN))).toBe(false);
    await page.screenshot({ path: join(SHOTS, "files.png") });

    await expectAccessible(page);
  });

  it("says the server keeps no workspace files when it has none (the routes answer 404)", async () => {
    const page = await open(without);
    await replyOnce(page, "hello", "No workspace here.");
    await page.click("#workspace-toggle");
    await expect
      .poll(() => page.locator("#workspace").textContent())
      .toContain("No workspace files on this server: start it with `workspaces`");
    expect(await page.locator("#workspace li").count()).toBe(0);
  });
});
