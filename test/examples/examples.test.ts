import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

// Every example imports "agentscope" as an app does (resolved to src/ by tsconfig "paths") and runs
// offline here; demo.ts has its own test (demo.test.ts).
const run = promisify(execFile);
const root = join(import.meta.dirname, "../..");
const examples = join(root, "examples");

function example(file: string, env: NodeJS.ProcessEnv = {}) {
  const clean: NodeJS.ProcessEnv = { ...process.env };
  for (const key of [
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "GEMINI_API_KEY",
    "DASHSCOPE_API_KEY",
    "OLLAMA_HOST",
  ])
    delete clean[key];
  delete clean.AGENTSCOPE_MODEL;
  return run(process.execPath, ["--import", "tsx", join(examples, file)], {
    cwd: root,
    env: { ...clean, ...env },
    timeout: 30_000,
  });
}

describe("examples/", () => {
  it("import agentscope by its package name, never the repo's source paths", () => {
    const files = readdirSync(examples).filter((file) => file.endsWith(".ts"));
    // An example either uses agentscope, by its package name, or is a client of the service that
    // imports none of it (bridge-openai-client.ts: the official openai client only).
    const usingAgentscope = files.filter((file) =>
      /from "agentscope(\/[a-z/]+)?"/.test(readFileSync(join(examples, file), "utf8")),
    );
    expect(usingAgentscope.length).toBeGreaterThanOrEqual(5);
    for (const file of files) {
      const source = readFileSync(join(examples, file), "utf8");
      expect(source, file).not.toMatch(/from "\.\.\//);
      if (!usingAgentscope.includes(file)) expect(file).toMatch(/^bridge-/);
    }
  });

  it("memory.ts: a preference from session 1 reaches session 2", async () => {
    const { stdout } = await example("memory.ts");
    expect(stdout).toContain("remembered: Prefers answers in French");
    expect(stdout).toContain("session 2 hint › - Prefers answers in French");
  }, 40_000);

  it("rag.ts: answers from the indexed documents with a citation", async () => {
    const { stdout } = await example("rag.ts");
    expect(stdout).toMatch(/error-codes\.csv/);
    expect(stdout).toContain("answer: code: ZX-81 | meaning: coolant valve stuck");
  }, 40_000);

  it("team.ts: the goal loop passes on the scripted team", async () => {
    const { stdout } = await example("team.ts");
    expect(stdout).toMatch(/Goal: \{"result":"pass"/);
  }, 40_000);

  it("spawn-and-plan.ts: plan mode refuses the early write, the approved plan switches mode, spawned results arrive", async () => {
    const { stdout } = await example("spawn-and-plan.ts");
    expect(stdout).toMatch(/→ save_note\n {2}denied\n→ PlanPropose\n\? PlanPropose asks for approval/);
    expect(stdout).toContain('"from":"plan","to":"default"');
    expect(stdout).toContain("[main/explorer-1] reply completed");
    expect(stdout).toContain('hint: Sub-agent sub_2 ("summariser-2", template summariser) completed.');
    expect(stdout).toContain('notes: ["3 modules: api, core, ui"]');
    expect(stdout).toContain("tasks: task_1 completed, task_2 completed");
  }, 40_000);

  it("readme-agent.ts: runs, and an unreachable provider ends the reply with a named error", async () => {
    // A made-up key: offline a connection error, online an authentication error; never a stack trace.
    const { stderr } = await example("readme-agent.ts", { OPENAI_API_KEY: "sk-test" });
    expect(stderr).toMatch(/^\n?(connection|authentication): /m);
  }, 40_000);
});
