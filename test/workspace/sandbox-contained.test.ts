import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { localProcessRunner } from "../../src/tool/builtin/index.js";
import {
  BubblewrapRunner,
  LocalWorkspace,
  SandboxUnavailableError,
  SandboxWorkspace,
} from "../../src/workspace/index.js";
import { reportMissingService } from "../support/services.js";
import { bubblewrapMissing, tempDir } from "./helpers.js";

const missing = await bubblewrapMissing();

describe("a SandboxWorkspace made with new runs nothing on the host", () => {
  if (missing) return reportMissingService(missing);
  const { dir, cleanup } = tempDir();
  afterAll(cleanup);
  const hostFile = join(dir, "host-only.txt");
  writeFileSync(hostFile, "on the host");
  const root = join(dir, "ws");

  it("new SandboxWorkspace({ root }) runs its commands in a sandbox", async () => {
    // What plain JavaScript does: no TypeScript, no open().
    const Workspace = SandboxWorkspace as unknown as new (options: { root: string }) => SandboxWorkspace;
    const workspace = new Workspace({ root });
    expect(workspace.runner).toBeInstanceOf(BubblewrapRunner);
    const { output } = await workspace.exec(
      `test -e ${hostFile} && echo host-visible || echo host-hidden; ls -A ${homedir()} | wc -l; hostname`,
    );
    const [visible, homeEntries] = output.trim().split("\n");
    expect(visible).toBe("host-hidden");
    expect(homeEntries).toBe("0");
    await workspace.close();
  });

  it("its file view hides what the sandbox hides", async () => {
    const workspace = new SandboxWorkspace({ root });
    await workspace.writeFile("notes.txt", "fine");
    writeFileSync(join(workspace.root, ".env"), "TOKEN=x");
    mkdirSync(join(workspace.root, ".kube"), { recursive: true });
    writeFileSync(join(workspace.root, ".kube", "config"), "token: x");
    mkdirSync(join(workspace.root, "sub", ".config", "gh"), { recursive: true });
    writeFileSync(join(workspace.root, "sub", ".config", "gh", "hosts.yml"), "oauth_token: gho_x");
    writeFileSync(join(workspace.root, "sub", ".pgpass"), "db:5432:*:me:pw_x");
    symlinkSync(hostFile, join(workspace.root, "link.txt"));
    await expect(workspace.readFile(".env")).rejects.toThrow(/hidden/);
    await expect(workspace.readFile(".kube/config")).rejects.toThrow(/hidden/);
    await expect(workspace.readFile("link.txt")).rejects.toThrow(/outside the workspace/);
    await expect(workspace.writeFile(".env", "TOKEN=y")).rejects.toThrow(/hidden/);
    const listed = (await workspace.listFiles(".", { recursive: true })).map((entry) => entry.path);
    expect(listed).toContain("notes.txt");
    expect(listed.filter((path) => path.startsWith(".env") || path.startsWith(".kube"))).toEqual([]);
    await expect(workspace.readFile("sub/.config/gh/hosts.yml")).rejects.toThrow(/hidden/);
    const { output } = await workspace.exec(
      "cat .env .kube/config sub/.config/gh/hosts.yml sub/.pgpass 2>&1; echo end",
    );
    expect(output).not.toContain("TOKEN=x");
    expect(output).not.toContain("token: x");
    expect(output).not.toContain("gho_x");
    expect(output).not.toContain("pw_x");
    await workspace.close();
  });
});

describe("a SandboxWorkspace cannot be made to run on the host", () => {
  const { dir, cleanup } = tempDir();
  afterAll(cleanup);

  it("without bubblewrap the first command throws SandboxUnavailableError and nothing runs", async () => {
    const workspace = new SandboxWorkspace({
      root: join(dir, "ws"),
      policy: { bwrapPath: "/nonexistent/bwrap", maxProcesses: null },
    });
    const marker = join(workspace.root, "ran-on-host");
    await expect(workspace.exec(`touch ${marker}`)).rejects.toSatisfy(
      (error: unknown) => SandboxUnavailableError.isInstance(error) && error.reason === "not_installed",
    );
    expect(existsSync(marker)).toBe(false);
  });

  it("refuses a runner that is not a sandbox over its root", () => {
    const root = join(dir, "ws2");
    const Workspace = SandboxWorkspace as unknown as new (
      options: { root: string },
      runner: unknown,
    ) => SandboxWorkspace;
    expect(() => new Workspace({ root }, localProcessRunner())).toThrow(/must be a BubblewrapRunner/);
    expect(() => new Workspace({ root }, new BubblewrapRunner(dir))).toThrow(/not the workspace root/);
  });

  it("refuses a root that contains the home directory", () => {
    expect(() => new BubblewrapRunner("/")).toThrow(/contains the home directory/);
    expect(() => new LocalWorkspace({ root: dir })).not.toThrow();
  });
});
