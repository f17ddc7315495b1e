/** Launches a local MCP server as a child process and speaks JSON-RPC over its stdin/stdout. */
export interface McpStdioConfig {
  name: string;
  transport: "stdio";
  command: string;
  args?: string[];
  /** Added to a safe default environment (PATH, HOME, ...), not to the whole of `process.env`. */
  env?: Record<string, string>;
  cwd?: string;
  /** The server's stderr: `pipe` (default) keeps its tail for error messages; `inherit` prints it. */
  stderr?: "pipe" | "inherit" | "ignore";
}

/** A remote MCP server over Streamable HTTP (`http`) or the legacy HTTP+SSE transport (`sse`). */
export interface McpHttpConfig {
  name: string;
  transport: "http" | "sse";
  url: string;
  headers?: Record<string, string>;
}

export type McpServerConfig = McpStdioConfig | McpHttpConfig;

/** Throws a clear error for a config that cannot work, before any process or socket is opened. */
export function validateMcpConfig(config: McpServerConfig): void {
  const label = `MCP server config${config?.name ? ` "${config.name}"` : ""}`;
  if (!config || typeof config.name !== "string" || config.name.trim() === "") {
    throw new Error(`${label}: "name" must be a non-empty string (it prefixes the tool names)`);
  }
  if (config.transport === "stdio") {
    if (typeof config.command !== "string" || config.command === "") {
      throw new Error(`${label}: "command" must name the program that starts the server`);
    }
    return;
  }
  if (config.transport === "http" || config.transport === "sse") {
    if (!URL.canParse(config.url)) throw new Error(`${label}: "url" is not a valid URL: ${config.url}`);
    return;
  }
  throw new Error(
    `${label}: "transport" must be "stdio", "http" or "sse", got ${JSON.stringify((config as { transport?: unknown }).transport)}`,
  );
}

/** One line naming where the server lives, for error messages. */
export function describeMcpConfig(config: McpServerConfig): string {
  if (config.transport === "stdio") return `stdio: ${[config.command, ...(config.args ?? [])].join(" ")}`;
  return `${config.transport}: ${config.url}`;
}
