import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { decidePermission, type PermissionMode } from "../../../src/permission/index.js";
import { findRipgrep } from "../../../src/tool/builtin/grep-search.js";
import { globTool, grepTool } from "../../../src/tool/builtin/index.js";
import type { Tool } from "../../../src/tool/index.js";
import { permission, run, tempDir, toolContext } from "./helpers.js";

const { dir, cleanup } = tempDir();
afterAll(cleanup);
mkdirSync(join(dir, "src"));
mkdirSync(join(dir, ".git"));
writeFileSync(join(dir, ".env"), "TOKEN=hunter2\n");
writeFileSync(join(dir, ".env.local"), "TOKEN=hunter2\n");
writeFileSync(join(dir, ".git", "config"), "url = https://TOKEN=hunter2@example\n");
writeFileSync(join(dir, "src", "a.ts"), "const TOKEN = 1;\n");

const decide = (tool: Tool, input: unknown, mode: PermissionMode = "default") =>
  decidePermission(tool, input, permission(dir, mode));

describe("Grep and Glob check every path they touch", () => {
  it("Grep with a glob that selects .env is a safety ask (denied in dont_ask, explore)", async () => {
    for (const glob of [".env", ".e*", ".env*", "**/.env", ".git/*", ".gi?/config"]) {
      const input = { pattern: "TOKEN", glob, outputMode: "content" };
      expect(await decide(grepTool(), input), glob).toMatchObject({ behavior: "ask", safety: true });
      expect(await decide(grepTool(), input, "accept_edits"), glob).toMatchObject({
        behavior: "ask",
        safety: true,
      });
      expect((await decide(grepTool(), input, "dont_ask")).behavior, glob).toBe("deny");
      expect((await decide(grepTool(), input, "explore")).behavior, glob).toBe("deny");
    }
  });

  it("Grep with an ordinary glob inside the working directory is allowed", async () => {
    expect((await decide(grepTool(), { pattern: "TOKEN", glob: "*.ts" })).behavior).toBe("allow");
    expect((await decide(grepTool(), { pattern: "TOKEN", glob: "src/**/*.ts" }, "explore")).behavior).toBe(
      "allow",
    );
  });

  it("Grep asks when its glob climbs out of the working directory", async () => {
    expect((await decide(grepTool(), { pattern: "x", glob: "../../etc/*" })).behavior).toBe("ask");
  });

  it("Glob checks the directory its pattern reaches, not only path", async () => {
    expect((await decide(globTool(), { pattern: "/etc/pass*" })).behavior).toBe("ask");
    expect((await decide(globTool(), { pattern: "../*" })).behavior).toBe("ask");
    expect((await decide(globTool(), { pattern: "src/*/../../../*" })).behavior).toBe("ask");
    expect((await decide(globTool(), { pattern: "/etc/pass*" }, "dont_ask")).behavior).toBe("deny");
    expect((await decide(globTool(), { pattern: "/etc/pass*" }, "explore")).behavior).toBe("deny");
    expect((await decide(globTool(), { pattern: "src/**/*.ts" }, "explore")).behavior).toBe("allow");
  });

  it("a deny path rule for *.env catches Grep on an .env file anywhere", async () => {
    const decision = await decidePermission(
      grepTool(),
      { pattern: "x", path: "/tmp/elsewhere/prod.env" },
      {
        mode: "bypass",
        rules: [{ toolName: "Grep", ruleContent: "*.env", behavior: "deny", source: "user" }],
        workingDirectories: [dir],
      },
    );
    expect(decision.behavior).toBe("deny");
  });

  for (const useRipgrep of [true, false]) {
    describe.skipIf(useRipgrep && !findRipgrep())(
      `a directory search never reads dangerous files (${useRipgrep ? "ripgrep" : "JavaScript"})`,
      () => {
        it("a glob nothing matches once dangerous files are left out is simply no match", async () => {
          const output = await run(
            grepTool({ useRipgrep }),
            { pattern: "hunter\\d", glob: ".env" },
            toolContext(join(dir, ".git")),
          );
          expect(String(output)).toMatch(/^no matches/);
        });

        it.each([".env", ".env*", "**/.env*", ".git/*", "*"])("glob %j", async (glob) => {
          const output = await run(
            grepTool({ useRipgrep }),
            { pattern: "hunter\\d", glob, outputMode: "content" },
            toolContext(dir),
          );
          expect(String(output)).not.toContain("hunter2");
        });
      },
    );
  }
});
