import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Agent } from "../../../src/agent/index.js";
import { openTrace } from "../../../src/app/cli/replay-open.js";
import { userMsg } from "../../../src/message/index.js";
import { ScriptedModel } from "../../../src/testing/index.js";
import { writeTrace } from "../../../src/trace/index.js";
import { weather } from "../../agent/helpers.js";
import {
  chromiumAvailable,
  expectAccessible,
  launchChromium,
  openConsole,
  SHOTS,
} from "../console/browser-kit.js";

/** A trace file of one reply with a tool loop: a tool call, an unknown tool, the answer. */
async function traceFile(dir: string): Promise<string> {
  const file = join(dir, "reply.jsonl");
  const model = new ScriptedModel([
    { thinking: "checking", toolCalls: [{ name: "get_weather", input: { city: "Paris" } }] },
    { toolCalls: [{ name: "no_such_tool", input: {} }] },
    { text: "It is sunny in Paris." },
  ]);
  const agent = new Agent({ name: "assistant", model, toolkit: [weather] });
  for await (const _ of writeTrace(agent.replyStream(userMsg("weather?")), file));
  return file;
}

describe.runIf(chromiumAvailable("replay --open tests"))("agentscope replay --open", () => {
  let dir: string;
  let browser: Browser;
  const errors: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "agentscope-replay-open-"));
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** The trace view at `url`: its spans as `kind:label`. */
  async function spansAt(url: string, shot?: string): Promise<string[]> {
    const { context, page } = await openConsole(browser, url, { errors, wait: "#trace .trace-row" });
    try {
      const spans = await page
        .locator(".trace-row")
        .evaluateAll((rows) =>
          rows.map((r) => `${(r as HTMLElement).dataset.kind}:${(r as HTMLElement).dataset.label}`),
        );
      if (shot) {
        await page.locator('.trace-row[data-kind="tool"]').first().click();
        expect(await page.locator(".trace-detail").textContent()).toContain('"output": "sunny in Paris"');
        await expectAccessible(page);
        await page.screenshot({ path: join(SHOTS, shot) });
      }
      return spans;
    } finally {
      await context.close();
    }
  }

  it("serves a trace file as the studio's waterfall: the reply, its model calls and tool runs, payloads on click", async () => {
    const file = await traceFile(dir);
    const opened = await openTrace(file);
    try {
      expect(opened.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      expect(opened.events).toBeGreaterThan(10);
      const spans = await spansAt(opened.url, "replay-open.png");
      expect(spans).toEqual([
        "reply:assistant reply",
        "model:scripted",
        "tool:get_weather",
        "model:scripted",
        "tool:no_such_tool",
        "model:scripted",
      ]);
      expect(errors).toEqual([]);
    } finally {
      await opened.close();
    }
  });

  it("runs as `agentscope replay --open FILE`: prints the address (BROWSER=none opens nothing) and serves until stopped", async () => {
    const file = await traceFile(dir);
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "src/app/cli/main.ts", "replay", "--open", file],
      {
        cwd: join(import.meta.dirname, "../../.."),
        env: { ...process.env, BROWSER: "none" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    try {
      let out = "";
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          const found = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
          if (found) resolve(found[1]!);
        });
        child.once("exit", (code) => reject(new Error(`replay exited (${code}): ${out}`)));
      });
      expect(out).toMatch(/^trace view of \d+ events: http/);
      expect(await spansAt(url)).toContain("tool:get_weather");
    } finally {
      child.kill();
    }
  }, 60_000);
});
