#!/usr/bin/env node
import { parseArgs } from "node:util";
import { isMissingOptionalPackage } from "../../state/lazy-driver.js";
import { TraceFileError } from "../../trace/jsonl-writer.js";
import { ConfigError } from "../server/config/service-config.js";
import type { ChatClient } from "./chat-client.js";
import { CliError } from "./cli-error.js";
import type { demoCommand } from "./demo-command.js";
import { HELP } from "./help.js";
import type { serveCommand } from "./serve-command.js";

// Each command imports what it needs when it runs, so `--help` starts fast.

const out = process.stdout;

function port(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new ConfigError(`--port: "${value}" is not a port number`);
  return n;
}

async function chat(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      config: { type: "string" },
      agent: { type: "string" },
      store: { type: "string" },
      url: { type: "string" },
      token: { type: "string" },
      session: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return void out.write(HELP.chat);
  const { httpChatClient, runtimeChatClient } = await import("./chat-client.js");
  let client: ChatClient;
  if (values.url) {
    const options: Parameters<typeof httpChatClient>[0] = { url: values.url };
    const token = values.token ?? process.env.AGENTSCOPE_TOKEN;
    if (token) options.token = token;
    if (values.session) options.sessionId = values.session;
    if (values.agent) options.agent = values.agent;
    client = await httpChatClient(options);
  } else {
    const { findConfig } = await import("./find-config.js");
    const { chatRuntime } = await import("./chat-runtime.js");
    const local = await chatRuntime(await findConfig(values.config), values.store);
    for (const warning of local.warnings) out.write(`warning: ${warning}\n`);
    out.write(`${local.containment}\n`);
    const inProcess = await runtimeChatClient(local.runtime, values.agent, local.readWorkspaceFile).catch(
      async (error) => {
        await local.close();
        throw error;
      },
    );
    client = { ...inProcess, close: local.close };
  }
  out.write(`session ${client.sessionId} (Ctrl-C interrupts a reply; /exit quits)\n`);
  const { chatLoop } = await import("./chat-command.js");
  const { LineReader } = await import("./line-reader.js");
  try {
    await chatLoop(client, { lines: new LineReader(process.stdin, out), out, color: out.isTTY === true });
  } finally {
    await client.close();
  }
}

async function serve(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      config: { type: "string" },
      port: { type: "string" },
      host: { type: "string" },
      store: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return void out.write(HELP.serve);
  const { serveCommand } = await import("./serve-command.js");
  const { findConfig } = await import("./find-config.js");
  const options: Parameters<typeof serveCommand>[0] = { config: await findConfig(values.config), out };
  const p = port(values.port);
  if (p !== undefined) options.port = p;
  if (values.host) options.host = values.host;
  if (values.store) options.store = values.store;
  await serveCommand(options);
}

async function demo(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: "string" },
      model: { type: "string" },
      workspace: { type: "string" },
      store: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return void out.write(HELP.demo);
  const { demoCommand } = await import("./demo-command.js");
  const options: Parameters<typeof demoCommand>[0] = { out };
  const p = port(values.port);
  if (p !== undefined) options.port = p;
  if (values.model) options.model = values.model;
  if (values.workspace) options.workspace = values.workspace;
  if (values.store) options.store = values.store;
  await demoCommand(options);
}

async function replay(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { help: { type: "boolean", short: "h" }, open: { type: "boolean" }, port: { type: "string" } },
  });
  if (values.help) return void out.write(HELP.replay);
  const [file, ...extra] = positionals;
  if (file === undefined || extra.length > 0)
    throw new ConfigError(`replay takes one trace file\n\n${HELP.replay}`);
  if (values.open) {
    const { openTrace, launchBrowser } = await import("./replay-open.js");
    const p = port(values.port);
    const opened = await openTrace(file, p === undefined ? {} : { port: p });
    out.write(`trace view of ${opened.events} events: ${opened.url} (Ctrl+C to stop)\n`);
    if (!(await launchBrowser(opened.url))) out.write("open that address in a browser\n");
    return;
  }
  const { replayTrace } = await import("./replay.js");
  await replayTrace(file, out, { color: out.isTTY === true });
}

async function init(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { help: { type: "boolean", short: "h" } },
  });
  if (values.help) return void out.write(HELP.init);
  if (positionals.length > 1) throw new ConfigError(`init takes at most one folder\n\n${HELP.init}`);
  const { initCommand } = await import("./init-command.js");
  initCommand(positionals[0] ?? ".", out);
}

async function kb(args: string[]): Promise<void> {
  // `kb list | head` closes the pipe early: stop quietly, as other command-line tools do.
  out.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    process.exit(0);
  });
  const { kbCommand } = await import("./kb-command.js");
  await kbCommand(args, { out, err: process.stderr });
}

async function evalDataset(args: string[]): Promise<void> {
  const { evalCommand } = await import("./eval-command.js");
  process.exitCode = await evalCommand(args, { out, err: process.stderr });
}

async function audit(args: string[]): Promise<void> {
  await (await import("./audit-command.js")).auditCommand(args, { out });
}

async function mcp(args: string[]): Promise<void> {
  return (await import("./mcp-command.js")).mcpCommand(args);
}

const COMMANDS: Record<string, (args: string[]) => Promise<void>> = {
  init,
  chat,
  serve,
  demo,
  replay,
  kb,
  eval: evalDataset,
  mcp,
  audit,
};

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    out.write(HELP.main);
    return;
  }
  const run = COMMANDS[command];
  if (!run) {
    process.stderr.write(`agentscope: unknown command "${command}"\n\n${HELP.main}`);
    process.exitCode = 2;
    return;
  }
  await run(rest);
}

/** One line saying what failed, and a hint; the stack only with AGENTSCOPE_DEBUG=1. */
main(process.argv.slice(2)).catch((error: unknown) => {
  const known =
    error instanceof ConfigError ||
    error instanceof TraceFileError ||
    error instanceof CliError ||
    isMissingOptionalPackage(error) || // its message has the install command
    (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS");
  const message = (error as Error)?.message ?? String(error);
  const hint =
    error instanceof CliError
      ? error.hint
      : known
        ? undefined
        : "this looks like a bug or an environment problem; AGENTSCOPE_DEBUG=1 shows the stack";
  const debug = process.env.AGENTSCOPE_DEBUG === "1" && (error as Error)?.stack;
  process.stderr.write(`agentscope: ${debug || message}\n${hint ? `  hint: ${hint}\n` : ""}`);
  process.exit(1);
});
