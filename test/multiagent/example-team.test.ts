import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);

describe("examples/team.ts", () => {
  it("runs offline on the scripted models: the team and the goal loop finish", async () => {
    const env = { ...process.env };
    for (const key of Object.keys(env))
      if (/_API_KEY$|^AGENTSCOPE_(MODEL|BASE_URL)$/.test(key)) delete env[key];
    const { stdout } = await run(process.execPath, ["--import", "tsx", "examples/team.ts"], {
      cwd: join(import.meta.dirname, "../.."),
      env,
      timeout: 30_000,
    });
    expect(stdout).toContain("lead/researcher starts inside call");
    expect(stdout).toContain("lead/writer: completed");
    expect(stdout).toContain("Team: Headline: Small Dog, Imperial Past");
    expect(stdout).toContain('"result":"pass"');
    expect(stdout).toContain('"iterations":2');
  }, 40_000);
});
