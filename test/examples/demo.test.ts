import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { LLMock } from "@copilotkit/aimock";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = join(import.meta.dirname, "../..");
const PROVIDER_KEYS = [
  "OPENAI_API_KEY",
  "ANTHROPIC_API_KEY",
  "GEMINI_API_KEY",
  "DASHSCOPE_API_KEY",
  "OLLAMA_HOST",
  "AGENTSCOPE_MODEL",
  "AGENTSCOPE_BASE_URL",
];

function demo(extra: Record<string, string> = {}) {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of PROVIDER_KEYS) delete env[key];
  return run(process.execPath, ["--import", "tsx", "examples/demo.ts"], {
    cwd: root,
    env: { ...env, ...extra },
    timeout: 30_000,
  });
}

describe("npm run demo", () => {
  it("streams the agent's events, asks before the tool that writes, and finishes", async () => {
    const { stdout } = await demo();
    expect(stdout).toContain("using the scripted demo model");
    expect(stdout).toContain("thinking: The user wants a summary");
    expect(stdout).toMatch(/→ list_files \{\}/);
    expect(stdout).toContain("todo.md: - ship the event stream");
    // The call's arguments are printed once, as they stream; the ask that follows names the call.
    expect(stdout).toMatch(/→ save_note \{"file":"summary\.md"[^\n]*\n\? save_note needs your approval/);
    expect(stdout).toMatch(/saved \d+ characters to summary\.md/);
    expect(stdout).toContain("Done: summary.md lists every file");
  }, 40_000);

  it("uses a real provider when one is configured (AGENTSCOPE_MODEL + AGENTSCOPE_BASE_URL)", async () => {
    const mock = new LLMock({ port: 0, host: "127.0.0.1", logLevel: "silent" });
    mock.on(
      { userMessage: "Summarise", turnIndex: 0 },
      { toolCalls: [{ id: "c1", name: "list_files", arguments: {} }] },
    );
    mock.on(
      { userMessage: "Summarise", turnIndex: 1 },
      { toolCalls: [{ id: "c2", name: "save_note", arguments: { file: "summary.md", text: "two files" } }] },
    );
    mock.on(
      { userMessage: "Summarise", turnIndex: 2 },
      { content: "Saved the summary from the mock provider." },
    );
    await mock.start();
    try {
      const { stdout } = await demo({
        AGENTSCOPE_MODEL: "openai:gpt-4o-mini",
        AGENTSCOPE_BASE_URL: `${mock.url}/v1`,
        OPENAI_API_KEY: "sk-test",
      });
      expect(stdout).toContain("Using openai:gpt-4o-mini.");
      expect(stdout).toContain("todo.md: - ship the event stream");
      expect(stdout).toContain("saved 9 characters to summary.md");
      expect(stdout).toContain("Saved the summary from the mock provider.");
    } finally {
      await mock.stop();
    }
  }, 40_000);
});
