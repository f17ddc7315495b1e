import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reportMissingService } from "../support/services.js";
import { bubblewrapMissing, runIn, sandbox, tempDir } from "./helpers.js";

const missing = await bubblewrapMissing();

describe("a bubblewrap sandbox keeps a command inside its workspace", () => {
  if (missing) return reportMissingService(missing);
  const outside = tempDir("agentscope-outside-");
  const { dir: root, cleanup } = tempDir();
  afterAll(() => {
    cleanup();
    outside.cleanup();
  });
  writeFileSync(join(outside.dir, "secret.txt"), "outside-secret-content");
  writeFileSync(join(root, "notes.txt"), "inside-content");

  it("reads and writes inside the workspace", async () => {
    const output = await runIn(sandbox(root), "cat notes.txt; echo made > made.txt; mkdir -p sub && pwd");
    expect(output).toBe(`inside-content${root}\n`);
    expect(existsSync(join(root, "made.txt"))).toBe(true);
  });

  it("cannot read a file outside the workspace", async () => {
    const file = join(outside.dir, "secret.txt");
    const output = await runIn(sandbox(root), `cat ${file}; ls ${outside.dir}`);
    expect(output).not.toContain("outside-secret-content");
    expect(output).toMatch(/No such file or directory/);
  });

  it("cannot write outside the workspace, not even to the read-only system", async () => {
    const target = join(outside.dir, "written.txt");
    const output = await runIn(sandbox(root), `echo x > ${target}; echo y > /usr/agentscope-test; echo done`);
    expect(output).toContain("Read-only file system");
    expect(existsSync(target)).toBe(false);
    expect(existsSync("/usr/agentscope-test")).toBe(false);
  });

  it("hides secret-looking files in the workspace and starts with an empty $HOME", async () => {
    writeFileSync(join(root, ".env"), "API_KEY=workspace-secret");
    mkdirSync(join(root, ".ssh"), { recursive: true });
    writeFileSync(join(root, ".ssh", "id_ed25519"), "private-key");
    const output = await runIn(sandbox(root), "cat .env; ls -A .ssh; cat /etc/shadow");
    expect(output).not.toContain("workspace-secret");
    expect(output).not.toContain("id_ed25519");
    expect(output).not.toMatch(/^root:/m);
    expect(await runIn(sandbox(root), "ls -A ~ | wc -l")).toBe("0\n");
  });

  it("shows a hidden file when the policy hides nothing", async () => {
    writeFileSync(join(root, ".env"), "API_KEY=visible-when-configured");
    const output = await runIn(sandbox(root, { hiddenFiles: [] }), "cat .env");
    expect(output).toBe("API_KEY=visible-when-configured");
  });

  it("passes only allow-listed environment variables", async () => {
    process.env.AGENTSCOPE_SANDBOX_TEST_TOKEN = "host-token";
    try {
      const scrubbed = await runIn(sandbox(root), "env");
      expect(scrubbed).not.toContain("host-token");
      expect(scrubbed).toContain("PATH=");
      const allowed = await runIn(
        sandbox(root, { envAllowList: ["PATH", "AGENTSCOPE_SANDBOX_TEST_TOKEN"] }),
        "echo $AGENTSCOPE_SANDBOX_TEST_TOKEN",
      );
      expect(allowed).toBe("host-token\n");
    } finally {
      delete process.env.AGENTSCOPE_SANDBOX_TEST_TOKEN;
    }
  });

  it("cannot see other processes or keep capabilities", async () => {
    const output = await runIn(sandbox(root), "grep CapEff /proc/self/status; ls /proc | grep -c '^[0-9]'");
    expect(output).toMatch(/CapEff:\s+0+\n/);
    const visible = Number(output.trim().split("\n").at(-1));
    expect(visible).toBeLessThan(10);
  });
});

describe("a bubblewrap sandbox has no network unless allowed", () => {
  if (missing) return reportMissingService(missing);
  const { dir: root, cleanup } = tempDir();
  let server: Server;
  let port = 0;
  beforeAll(async () => {
    server = createServer((socket) => socket.end("hello from the host\n"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    cleanup();
    await new Promise((resolve) => server.close(resolve));
  });
  const connect = () => `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected && cat <&3`;

  it("cannot open a socket, not even to 127.0.0.1", async () => {
    const output = await runIn(sandbox(root), connect());
    expect(output).not.toContain("connected");
    expect(output).not.toContain("hello from the host");
    expect(output).toMatch(/\[exit code 1\]/);
  });

  it("reaches the host when the policy allows the network", async () => {
    const output = await runIn(sandbox(root, { network: true }), connect());
    expect(output).toContain("hello from the host");
  });
});
