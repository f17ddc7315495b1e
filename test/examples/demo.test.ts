import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const root = join(import.meta.dirname, "../..");

describe("npm run demo", () => {
  it("streams the agent's events, asks before the tool that writes, and finishes", async () => {
    const env = { ...process.env };
    for (const key of [
      "OPENAI_API_KEY",
      "ANTHROPIC_API_KEY",
      "GEMINI_API_KEY",
      "DASHSCOPE_API_KEY",
      "OLLAMA_HOST",
      "AGENTSCOPE_MODEL",
    ]) {
      delete env[key];
    }
    const { stdout } = await run(process.execPath, ["--import", "tsx", "examples/demo.ts"], {
      cwd: root,
      env,
      timeout: 30_000,
    });
    expect(stdout).toContain("using the scripted demo model");
    expect(stdout).toContain("thinking: The user wants a summary");
    expect(stdout).toMatch(/→ list_files \{\}/);
    expect(stdout).toContain("todo.md: - ship the event stream");
    expect(stdout).toMatch(/\? save_note .*summary\.md/);
    expect(stdout).toContain("saved 124 characters to summary.md");
    expect(stdout).toContain("Done: summary.md lists every file");
  }, 40_000);
});
