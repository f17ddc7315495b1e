import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { chatRuntime } from "../../src/app/cli/chat-runtime.js";
import { demoCommand } from "../../src/app/cli/demo-command.js";
import { openServiceWorkspaces } from "../../src/app/server/config/attach-workspaces.js";
import type { ServiceConfig } from "../../src/app/server/config/service-config.js";
import type { ServiceRuntime } from "../../src/app/server/runtime/service-runtime.js";
import { startServer } from "../../src/app/server/start-server.js";
import type { AgentEvent } from "../../src/event/index.js";
import { userMsg } from "../../src/message/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { SandboxUnavailableError } from "../../src/workspace/index.js";
import { reportMissingService } from "../support/services.js";
import { bubblewrapMissing, tempDir } from "./helpers.js";

const missing = await bubblewrapMissing();
const { dir, cleanup } = tempDir("agentscope-contained-");
afterAll(cleanup);
const hostFile = join(dir, "host-only.txt");
writeFileSync(hostFile, "on the host");
/** A command that says whether a host file outside the workspace is visible. */
const PROBE = `test -e ${hostFile} && echo HOST-VISIBLE || echo HOST-INVISIBLE`;

/** A model that runs PROBE with Bash, then answers. */
function probingModel(): ScriptedModel {
  return new ScriptedModel([
    { toolCalls: [{ name: "Bash", input: { command: PROBE } }] },
    { text: "probed" },
  ]);
}

function freshConfig(extra: Partial<ServiceConfig> = {}): ServiceConfig {
  return { agents: [{ name: "main", model: probingModel(), tools: ["Bash", "Read"] }], ...extra };
}

/** One reply, every confirmation answered yes; the Bash result's output. */
async function probe(runtime: ServiceRuntime): Promise<string> {
  const { sessionId } = await runtime.createSession("local");
  const collect = async (start: Promise<{ after: number; done: Promise<void> }>) => {
    const run = await start;
    const items = await runtime.follow("local", sessionId, {
      after: run.after,
      signal: new AbortController().signal,
      until: run.done,
    });
    const events: AgentEvent[] = [];
    for await (const item of items) if (item.kind === "event") events.push(item.event);
    return events;
  };
  let events = await collect(runtime.startReply("local", sessionId, [userMsg("probe")]));
  const all = [...events];
  for (let ask = events.at(-1); ask?.type === "REQUIRE_USER_CONFIRM"; ask = events.at(-1)) {
    const answers = ask.toolCalls.map((call) => ({ toolCallId: call.id, confirmed: true }));
    events = await collect(runtime.confirm("local", sessionId, answers));
    all.push(...events);
  }
  return all
    .filter((event) => event.type === "TOOL_RESULT_TEXT_DELTA")
    .map((event) => JSON.stringify(event))
    .join("\n");
}

function sink(): { out: Writable; text: () => string } {
  let text = "";
  const out = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  return { out, text: () => text };
}

describe("serve, chat and demo contain the tools by default", () => {
  if (missing) return reportMissingService(missing);

  it("serve with a fresh config: Bash runs in a sandbox per session and says so", async () => {
    const server = await startServer({ config: freshConfig(), store: "memory:", port: 0, tokensEnv: "" });
    try {
      expect(server.containment).toBe("tools contained: bubblewrap sandbox per session");
      expect(server.warnings).toEqual([]);
      const output = await probe(server.runtime);
      expect(output).toContain("HOST-INVISIBLE");
      expect(output).not.toContain("HOST-VISIBLE");
    } finally {
      await server.close();
    }
  });

  it("serve with sandbox: false runs Bash on the host, and says that too", async () => {
    const config = freshConfig({ workspaces: { sandbox: false } });
    const server = await startServer({ config, store: "memory:", port: 0, tokensEnv: "" });
    try {
      expect(server.containment).toMatch(/^tools NOT contained: sandbox is off/);
      expect(await probe(server.runtime)).toContain("HOST-VISIBLE");
    } finally {
      await server.close();
    }
  });

  it("chat's runtime honours the config's workspaces and the sandbox", async () => {
    const chat = await chatRuntime(freshConfig({ workspaces: { scope: "user" } }));
    try {
      expect(chat.containment).toBe("tools contained: bubblewrap sandbox per user");
      expect(await probe(chat.runtime)).toContain("HOST-INVISIBLE");
    } finally {
      await chat.close();
    }
  });

  it("agentscope chat with a fresh config prints the containment line and runs Bash in the sandbox", async () => {
    const configFile = join(dir, "chat.config.ts");
    const testing = fileURLToPath(new URL("../../src/testing/index.ts", import.meta.url));
    writeFileSync(
      configFile,
      `import { ScriptedModel } from ${JSON.stringify(testing)};
export default { agents: [{ name: "main", tools: ["Bash"], model: new ScriptedModel([
  { toolCalls: [{ name: "Bash", input: { command: ${JSON.stringify(PROBE)} } }] }, { text: "probed" }]) }] };
`,
    );
    const tsx = createRequire(import.meta.url).resolve("tsx");
    const main = fileURLToPath(new URL("../../src/app/cli/main.ts", import.meta.url));
    const child = spawn(process.execPath, ["--import", tsx, main, "chat", "--config", configFile], {
      cwd: dir,
      env: { ...process.env, AGENTSCOPE_TOKENS: "" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    child.stdin.end("probe\ny\n/exit\n");
    let stdout = "";
    child.stdout.on("data", (data) => {
      stdout += data;
    });
    const code = await new Promise((resolve) => child.once("exit", resolve));
    expect(code).toBe(0);
    expect(stdout.split("\n")[0]).toBe("tools contained: bubblewrap sandbox per session");
    expect(stdout).toContain("HOST-INVISIBLE");
  }, 30_000);

  it("demo: the demo agent's Bash runs in its session's sandbox", async () => {
    const { out, text } = sink();
    const server = await demoCommand({
      port: 0,
      model: probingModel(),
      store: "memory:",
      workspace: join(dir, "demo"),
      out,
    });
    try {
      expect(text()).toContain("tools contained: bubblewrap sandbox per session\n");
      expect(await probe(server.runtime)).toContain("HOST-INVISIBLE");
    } finally {
      await server.close();
    }
  });
});

describe("where bubblewrap cannot run", () => {
  const withoutBwrap = async <T>(body: () => Promise<T>): Promise<T> => {
    const path = process.env.PATH;
    process.env.PATH = join(dir, "no-such-bin");
    try {
      return await body();
    } finally {
      process.env.PATH = path;
    }
  };

  it("the default starts anyway, warning what is not contained and how to install it", async () => {
    const opened = await withoutBwrap(() =>
      openServiceWorkspaces({ config: undefined, storeUrl: "memory:" }),
    );
    try {
      expect(opened.manager.sandboxed).toBe(false);
      expect(opened.containment).toMatch(/^tools NOT contained: Bash runs on the host/);
      expect(opened.warning).toMatch(/not sandboxed.*apt-get install bubblewrap.*Docker\/Podman/);
    } finally {
      await opened.close();
    }
  });

  it("sandbox: true refuses to start without it", async () => {
    await expect(
      withoutBwrap(() => openServiceWorkspaces({ config: { sandbox: true }, storeUrl: "memory:" })),
    ).rejects.toSatisfy((error: unknown) => SandboxUnavailableError.isInstance(error));
  });
});
