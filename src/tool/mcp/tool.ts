import { createHash } from "node:crypto";
import type {
  CallToolResult,
  Tool as McpToolDefinition,
  ToolAnnotations,
} from "@modelcontextprotocol/sdk/types.js";
import { jsonSchemaTool } from "../json-schema-tool.js";
import { ToolError } from "../tool-error.js";
import type { Tool, ToolChunk, ToolContext } from "../types.js";
import { mcpResultToBlocks, textOfBlocks } from "./content.js";
import { streamWithProgress } from "./progress-stream.js";

/** A progress notification from a running MCP tool. */
export interface McpProgress {
  progress: number;
  total?: number;
  message?: string;
}

export interface McpCallOptions {
  signal?: AbortSignal;
  /** Asks the server for progress notifications and receives them. */
  onProgress?: (progress: McpProgress) => void;
}

/** What an MCP tool needs from its client. */
export interface McpToolCaller {
  readonly name: string;
  callTool(tool: string, args: Record<string, unknown>, options?: McpCallOptions): Promise<CallToolResult>;
}

/** A Tool backed by an MCP server; `mcp` names where it came from. */
export interface McpTool extends Tool<Record<string, unknown>> {
  mcp: { server: string; tool: string; annotations?: ToolAnnotations };
}

const MAX_NAME = 128;

/** `mcp__<server>__<tool>` with every character the Toolkit does not allow replaced by `_`. */
export function mcpToolName(server: string, tool: string): string {
  const name = `mcp__${server}__${tool}`.replace(/[^a-zA-Z0-9_-]/g, "_");
  if (name.length <= MAX_NAME) return name;
  const hash = createHash("sha256").update(name).digest("hex").slice(0, 8);
  return `${name.slice(0, MAX_NAME - 9)}_${hash}`;
}

/** Read-only when the server says `readOnlyHint: true` and does not also say it is destructive. */
function isReadOnly(annotations: ToolAnnotations | undefined): boolean {
  return annotations?.readOnlyHint === true && annotations.destructiveHint !== true;
}

function formatProgress({ progress, total, message }: McpProgress): string {
  return `[progress ${progress}${total === undefined ? "" : `/${total}`}${message ? ` ${message}` : ""}]\n`;
}

/**
 * Runs the remote tool, streaming progress lines while it runs, then the result's blocks. A result
 * with `isError: true` is thrown as a ToolError carrying the blocks.
 */
function runMcpTool(
  caller: McpToolCaller,
  tool: string,
  input: Record<string, unknown>,
  ctx: ToolContext,
): AsyncIterable<ToolChunk> {
  return streamWithProgress(async (report) => {
    const result = await caller.callTool(tool, input, {
      signal: ctx.signal,
      onProgress: (progress) => report(formatProgress(progress)),
    });
    const blocks = mcpResultToBlocks(result);
    if (result.isError) {
      const message =
        textOfBlocks(blocks) || `MCP tool "${tool}" on server "${caller.name}" failed without a message`;
      throw new ToolError(message, { output: blocks });
    }
    return blocks;
  });
}

async function mcpTool(caller: McpToolCaller, definition: McpToolDefinition): Promise<McpTool> {
  const readOnly = isReadOnly(definition.annotations);
  const config = {
    name: mcpToolName(caller.name, definition.name),
    description:
      definition.description ??
      definition.title ??
      `Tool "${definition.name}" of MCP server "${caller.name}"`,
    inputSchema: definition.inputSchema,
    readOnly,
    concurrencySafe: readOnly,
    execute: (input: Record<string, unknown>, ctx: ToolContext) =>
      runMcpTool(caller, definition.name, input, ctx),
  };
  let tool: Tool<Record<string, unknown>>;
  try {
    tool = await jsonSchemaTool(config);
  } catch {
    // A schema Ajv cannot compile: show it to the model as is and let the server validate.
    const { $schema: _ignored, ...schema } = definition.inputSchema;
    tool = { ...(await jsonSchemaTool({ ...config, inputSchema: { type: "object" } })), inputSchema: schema };
  }
  const mcp: McpTool["mcp"] = { server: caller.name, tool: definition.name };
  if (definition.annotations) mcp.annotations = definition.annotations;
  return { ...tool, mcp };
}

/** Our Tools for a server's tool definitions; two remote names that sanitise alike are an error. */
export async function mcpTools(caller: McpToolCaller, definitions: McpToolDefinition[]): Promise<McpTool[]> {
  const tools = await Promise.all(definitions.map((definition) => mcpTool(caller, definition)));
  const seen = new Map<string, string>();
  for (const tool of tools) {
    const other = seen.get(tool.name);
    if (other !== undefined) {
      throw new Error(
        `MCP server "${caller.name}" has tools "${other}" and "${tool.mcp.tool}" that both become "${tool.name}"; rename one on the server`,
      );
    }
    seen.set(tool.name, tool.mcp.tool);
  }
  return tools;
}
