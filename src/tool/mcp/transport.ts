import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpServerConfig } from "./config.js";

const STDERR_TAIL_CHARS = 2000;

/** A transport plus what we keep from it for diagnostics. */
export interface OpenedTransport {
  transport: Transport;
  /** The last lines the stdio server wrote to stderr (empty for remote servers). */
  stderrTail(): string;
  /** The stdio server's process id, once started. */
  pid(): number | undefined;
}

/** Builds the SDK transport for a config; the SDK module is imported here, on first use only. */
export async function openTransport(config: McpServerConfig): Promise<OpenedTransport> {
  if (config.transport === "stdio") {
    const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
    const transport = new StdioClientTransport({
      command: config.command,
      args: config.args ?? [],
      ...(config.env ? { env: config.env } : {}),
      ...(config.cwd ? { cwd: config.cwd } : {}),
      stderr: config.stderr ?? "pipe",
    });
    let tail = "";
    transport.stderr?.on("data", (chunk: Buffer | string) => {
      tail = (tail + chunk.toString()).slice(-STDERR_TAIL_CHARS);
    });
    return { transport, stderrTail: () => tail.trim(), pid: () => transport.pid ?? undefined };
  }
  const requestInit = config.headers ? { headers: config.headers } : undefined;
  const url = new URL(config.url);
  if (config.transport === "sse") {
    const { SSEClientTransport } = await import("@modelcontextprotocol/sdk/client/sse.js");
    const transport = new SSEClientTransport(url, requestInit ? { requestInit } : undefined);
    return { transport, stderrTail: () => "", pid: () => undefined };
  }
  const { StreamableHTTPClientTransport } = await import(
    "@modelcontextprotocol/sdk/client/streamableHttp.js"
  );
  const transport = new StreamableHTTPClientTransport(url, requestInit ? { requestInit } : undefined);
  return { transport, stderrTail: () => "", pid: () => undefined };
}
