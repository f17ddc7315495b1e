import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type {
  CallToolResult,
  Tool as McpToolDefinition,
  Prompt,
  Resource,
  ResourceTemplate,
} from "@modelcontextprotocol/sdk/types.js";
import { createMsg, type DataBlock, type Msg, type TextBlock } from "../../message/index.js";
import type { Closeable } from "../closeable.js";
import { describeMcpConfig, type McpServerConfig, validateMcpConfig } from "./config.js";
import { mcpContentToBlock, resourceContentsToBlock } from "./content.js";
import { isConnectionLoss, isNotSent, isStaleSocket, isTimeout, McpError, messageOf } from "./errors.js";
import { type McpCallOptions, type McpTool, mcpTools } from "./tool.js";
import { type OpenedTransport, openTransport } from "./transport.js";

const CLIENT_INFO = { name: "agentscope", version: "0.1.0" };

export interface McpClientOptions {
  /** How long one request may wait for an answer, in ms (default 60 000); progress restarts it. */
  timeoutMs?: number;
  /** Longest a tool call may run in total, progress or not, in ms (default: no limit). */
  maxCallMs?: number;
}

interface Session {
  client: Client;
  opened: OpenedTransport;
  alive: boolean;
}

/**
 * One MCP server. Connects on `connect()` or the first request; a server that died (process exit,
 * closed socket, lost HTTP session) is reconnected on the next request. A call that was in flight
 * when it died fails with an McpError of type `connection` and is not resent. `close()` ends it.
 */
export class McpClient implements Closeable {
  readonly name: string;
  private session: Session | undefined;
  private opening: Promise<Session> | undefined;
  private closed = false;

  constructor(
    readonly config: McpServerConfig,
    private readonly options: McpClientOptions = {},
  ) {
    validateMcpConfig(config);
    this.name = config.name;
  }

  /** Whether a live connection is open now. */
  get connected(): boolean {
    return this.session?.alive === true;
  }

  /** The stdio server's process id while connected. */
  get pid(): number | undefined {
    return this.session?.alive ? this.session.opened.pid() : undefined;
  }

  /** The server's usage instructions from its handshake, if it sent any. */
  get instructions(): string | undefined {
    return this.session?.client.getInstructions();
  }

  async connect(): Promise<void> {
    await this.ensureSession();
  }

  /** The server's tools as our Tools, named `mcp__<server>__<tool>`. */
  async tools(): Promise<McpTool[]> {
    return mcpTools(this, await this.listTools());
  }

  async listTools(): Promise<McpToolDefinition[]> {
    return this.paged("listing tools", (client, cursor, options) =>
      client
        .listTools(cursor ? { cursor } : undefined, options)
        .then((page) => [page.tools, page.nextCursor]),
    );
  }

  /** Calls a tool by its name on the server. A result with `isError: true` is returned, not thrown. */
  async callTool(
    tool: string,
    args: Record<string, unknown>,
    options: McpCallOptions = {},
  ): Promise<CallToolResult> {
    const { signal, onProgress } = options;
    const request: RequestOptions = { ...this.requestOptions(signal), resetTimeoutOnProgress: true };
    if (this.options.maxCallMs !== undefined) request.maxTotalTimeout = this.options.maxCallMs;
    if (onProgress) request.onprogress = (progress) => onProgress(progress);
    const result = await this.request(
      `the call of tool "${tool}"`,
      (client) => client.callTool({ name: tool, arguments: args }, undefined, request),
      { signal, resend: false },
    );
    return result as CallToolResult;
  }

  /** The server's resources; empty when it offers none. */
  async listResources(): Promise<Resource[]> {
    if (!(await this.offers("resources"))) return [];
    return this.paged("listing resources", (client, cursor, options) =>
      client
        .listResources(cursor ? { cursor } : undefined, options)
        .then((page) => [page.resources, page.nextCursor]),
    );
  }

  async listResourceTemplates(): Promise<ResourceTemplate[]> {
    if (!(await this.offers("resources"))) return [];
    return this.paged("listing resource templates", (client, cursor, options) =>
      client
        .listResourceTemplates(cursor ? { cursor } : undefined, options)
        .then((page) => [page.resourceTemplates, page.nextCursor]),
    );
  }

  /** A resource's contents as text and data blocks. */
  async readResource(uri: string): Promise<Array<TextBlock | DataBlock>> {
    const result = await this.request(`reading resource ${uri}`, (client) =>
      client.readResource({ uri }, this.requestOptions()),
    );
    return result.contents.map(resourceContentsToBlock);
  }

  /** The server's prompts; empty when it offers none. */
  async listPrompts(): Promise<Prompt[]> {
    if (!(await this.offers("prompts"))) return [];
    return this.paged("listing prompts", (client, cursor, options) =>
      client
        .listPrompts(cursor ? { cursor } : undefined, options)
        .then((page) => [page.prompts, page.nextCursor]),
    );
  }

  /** A prompt filled with `args`, as user and assistant Msgs. */
  async getPrompt(
    name: string,
    args: Record<string, string> = {},
  ): Promise<{ description?: string; messages: Msg[] }> {
    const result = await this.request(`getting prompt "${name}"`, (client) =>
      client.getPrompt({ name, arguments: args }, this.requestOptions()),
    );
    const messages = result.messages.map((message) =>
      createMsg(message.role, [mcpContentToBlock(message.content)]),
    );
    return result.description === undefined ? { messages } : { description: result.description, messages };
  }

  /** Ends the connection (and the stdio server's process). Later requests fail. Safe to call twice. */
  async close(): Promise<void> {
    this.closed = true;
    await this.opening?.catch(() => undefined);
    const session = this.session;
    this.session = undefined;
    if (session) {
      session.alive = false;
      await session.client.close().catch(() => undefined);
    }
  }

  private requestOptions(signal?: AbortSignal): RequestOptions {
    const options: RequestOptions = {};
    if (signal) options.signal = signal;
    if (this.options.timeoutMs !== undefined) options.timeout = this.options.timeoutMs;
    return options;
  }

  private async offers(capability: "resources" | "prompts"): Promise<boolean> {
    const session = await this.ensureSession();
    return session.client.getServerCapabilities()?.[capability] !== undefined;
  }

  private paged<T>(
    what: string,
    page: (
      client: Client,
      cursor: string | undefined,
      options: RequestOptions,
    ) => Promise<[T[], string | undefined]>,
  ): Promise<T[]> {
    return this.request(what, async (client) => {
      const items: T[] = [];
      let cursor: string | undefined;
      do {
        const [batch, next] = await page(client, cursor, this.requestOptions());
        items.push(...batch);
        cursor = next;
      } while (cursor);
      return items;
    });
  }

  private ensureSession(): Promise<Session> {
    if (this.closed) {
      return Promise.reject(
        new McpError(
          "invalid_request",
          this.name,
          `MCP client "${this.name}" is closed; create a new McpClient`,
        ),
      );
    }
    if (this.session?.alive) return Promise.resolve(this.session);
    this.opening ??= this.open().finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  /** Opens a new session; the handshake is tried twice when a pooled HTTP socket turns out dead. */
  private async open(): Promise<Session> {
    const stale = this.session;
    this.session = undefined;
    await stale?.client.close().catch(() => undefined);
    let session = await this.handshake();
    if (session instanceof Error && isStaleSocket(session.cause)) session = await this.handshake();
    if (session instanceof Error) throw session;
    if (this.closed) {
      await session.client.close().catch(() => undefined);
      throw new McpError(
        "invalid_request",
        this.name,
        `MCP client "${this.name}" was closed while connecting`,
      );
    }
    this.session = session;
    return session;
  }

  /** Starts the transport and runs the MCP handshake; a failure is returned as an McpError. */
  private async handshake(): Promise<Session | McpError> {
    const [{ Client }, opened] = await Promise.all([
      import("@modelcontextprotocol/sdk/client/index.js"),
      openTransport(this.config),
    ]);
    const client = new Client(CLIENT_INFO, { capabilities: {} });
    const session: Session = { client, opened, alive: true };
    client.onclose = () => {
      session.alive = false;
    };
    client.onerror = () => {}; // failures surface through the requests that hit them
    try {
      await client.connect(opened.transport, this.requestOptions());
      return session;
    } catch (error) {
      session.alive = false;
      await client.close().catch(() => undefined);
      return new McpError(
        "connection",
        this.name,
        `could not connect to MCP server "${this.name}" (${describeMcpConfig(this.config)}): ${messageOf(error)}${this.stderrOf(session)}. Check that the server starts and speaks MCP.`,
        error,
      );
    }
  }

  /**
   * Runs one request on a live session. A lost connection drops the session so the next request
   * reconnects; requests that are safe to resend (`resend`, default true) are tried once more.
   */
  private async request<T>(
    what: string,
    run: (client: Client) => Promise<T>,
    { signal, resend = true }: { signal?: AbortSignal | undefined; resend?: boolean } = {},
  ): Promise<T> {
    for (let attempt = 0; ; attempt += 1) {
      const session = await this.ensureSession();
      try {
        return await run(session.client);
      } catch (error) {
        if (signal?.aborted) throw error;
        if (isTimeout(error)) {
          throw new McpError(
            "timeout",
            this.name,
            `MCP server "${this.name}" did not finish ${what} in time: ${messageOf(error)}. Raise timeoutMs or check the server.`,
            error,
          );
        }
        if (!isConnectionLoss(error)) {
          throw new McpError(
            "upstream",
            this.name,
            `MCP server "${this.name}" failed ${what}: ${messageOf(error)}`,
            error,
          );
        }
        session.alive = false;
        if (attempt === 0 && (resend || isNotSent(error))) continue;
        throw new McpError(
          "connection",
          this.name,
          `lost the connection to MCP server "${this.name}" (${describeMcpConfig(this.config)}) during ${what}: ${messageOf(error)}${this.stderrOf(session)}. It will be reconnected on the next call.`,
          error,
        );
      }
    }
  }

  private stderrOf(session: Session): string {
    const tail = session.opened.stderrTail();
    return tail ? `; server stderr: ${tail.split("\n").slice(-5).join(" | ")}` : "";
  }
}
