import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { expect } from "vitest";

/** Debian's Chromium, driven by playwright-core. */
export const CHROMIUM = "/usr/bin/chromium";
const required = process.env.AGENTSCOPE_REQUIRE_SERVICES === "1";

/** Whether the browser tests run here (else they skip with a note, unless services are required). */
export function chromiumAvailable(what: string): boolean {
  const available = existsSync(CHROMIUM);
  if (!available && !required)
    process.stderr.write(`${what} skipped: ${CHROMIUM} is missing (apt-get install -y chromium)\n`);
  return available || required;
}

/** Screenshots land here (ignored by git; CI keeps test-output/ as an artefact). */
export const SHOTS = join(process.cwd(), "test-output", "console");

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

export function launchChromium(): Promise<Browser> {
  mkdirSync(SHOTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking"],
  });
}

/** A page of the console at `url` (signed in with `token` when given), collecting page errors. */
export async function openConsole(
  browser: Browser,
  url: string,
  options: {
    token?: string;
    viewport?: { width: number; height: number };
    errors: string[];
    /** What shows the page is up (default: the chat's composer). */
    wait?: string;
  },
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    viewport: options.viewport ?? DESKTOP,
    reducedMotion: "reduce",
  });
  if (options.token)
    await context.addInitScript((token) => localStorage.setItem("agentscope.token", token), options.token);
  const page = await context.newPage();
  page.on("pageerror", (error) => options.errors.push(error.message));
  await page.goto(url);
  await page.waitForSelector(options.wait ?? "#composer");
  return { context, page };
}

/** Sends a message from the composer. */
export async function send(page: Page, text: string): Promise<void> {
  await page.fill("#input", text);
  await page.press("#input", "Enter");
}

/** The session id in the page's address (#/s/<id>). */
export const sessionIdOf = (page: Page) => decodeURIComponent(/#\/s\/(.+)$/.exec(page.url())?.[1] ?? "");

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** Runs axe-core on the page and expects no serious or critical violation. */
export async function expectAccessible(page: Page): Promise<void> {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run(): Promise<{ violations: Array<{ id: string; impact: string; nodes: unknown[] }> }> };
      }
    ).axe;
    const result = await axe.run();
    return result.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id}: ${JSON.stringify(v.nodes.map((n) => (n as { target: unknown }).target))}`);
  });
  expect(violations).toEqual([]);
}
