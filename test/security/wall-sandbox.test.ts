import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SandboxWorkspace } from "../../src/workspace/index.js";
import { reportMissingService } from "../support/services.js";
import { bubblewrapMissing, tempDir } from "../workspace/helpers.js";
import { decide } from "./wall-agent.js";

/**
 * Issue #35: "a wrong read-only verdict cannot hurt" — the sandbox must hide at least what the
 * engine flags as a secret. Each file here is one the engine asks about by name; a command the
 * analysis misjudges (a hostile repository's fsmonitor, say) runs in the sandbox and tries to print it.
 */
const missing = await bubblewrapMissing();

describe("the sandbox hides what the engine flags", () => {
  if (missing) return reportMissingService(missing);
  const { dir, cleanup } = tempDir("wall-sandbox-");
  const root = join(dir, "ws");
  mkdirSync(join(root, "deep"), { recursive: true });
  writeFileSync(join(root, ".env"), "PLAIN-ENV-SECRET\n");
  writeFileSync(join(root, "deep", ".npmrc"), "//registry/:_authToken=NPM-SECRET\n");
  writeFileSync(join(root, ".bash_history"), "HISTORY-SECRET\n");
  writeFileSync(join(root, "id_rsa"), "KEY-SECRET\n");
  mkdirSync(join(root, ".git"));
  writeFileSync(
    join(root, ".git", "config"),
    '[remote "origin"]\n\turl = https://u:GIT-TOKEN@example.com/r\n',
  );
  mkdirSync(join(root, "node_modules", "pkg"), { recursive: true });
  writeFileSync(join(root, "node_modules", "pkg", ".env"), "NODE-MODULES-SECRET\n");
  let workspace: SandboxWorkspace;
  afterAll(async () => {
    await workspace?.close();
    cleanup();
  });
  const catInSandbox = async (path: string) => {
    workspace ??= await SandboxWorkspace.open({ root });
    return (await workspace.exec(`cat ${path} 2>&1`)).output;
  };

  it.each([
    [".env", "PLAIN-ENV-SECRET"],
    ["deep/.npmrc", "NPM-SECRET"],
    [".bash_history", "HISTORY-SECRET"],
    ["id_rsa", "KEY-SECRET"],
  ])("%s is hidden inside the sandbox", async (path, secret) => {
    expect(await catInSandbox(path)).not.toContain(secret);
  });

  it.each([
    [".git/config", "GIT-TOKEN"],
    ["node_modules/pkg/.env", "NODE-MODULES-SECRET"],
  ])(
    "%s is flagged by the engine and not readable inside the sandbox (.git and node_modules are scanned too)",
    async (path, secret) => {
      expect((await decide(root, "Read", { path }, "default")).behavior).toBe("ask");
      expect(await catInSandbox(path)).not.toContain(secret);
    },
  );
});

describe("credential files missing from the dangerous list", () => {
  const { dir, cleanup } = tempDir("wall-credentials-");
  afterAll(cleanup);
  mkdirSync(join(dir, ".terraform.d"));
  writeFileSync(join(dir, ".terraform.d", "credentials.tfrc.json"), '{"credentials":{}}');

  it.each([".terraform.d/credentials.tfrc.json", ".htpasswd", "terraform.tfstate"])(
    "Read %s is allowed in explore mode (a CLI token / password file / state with secrets)",
    async (path) => {
      expect((await decide(dir, "Read", { path }, "explore")).behavior).not.toBe("allow");
    },
  );
});
