import type { ToolResultOutput } from "../message/index.js";
import { AgentScopeError } from "../message/index.js";

/**
 * Thrown by a tool whose call failed in a way the model should read and react to (e.g. an MCP
 * result with `isError: true`). The agent turns it into a tool_result with state `error` whose
 * output is `output` when given (text and data blocks), else the message.
 */
export class ToolError extends AgentScopeError {
  readonly output: ToolResultOutput | undefined;

  constructor(message: string, options: { output?: ToolResultOutput; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ToolError";
    this.output = options.output;
  }

  static override isInstance(value: unknown): value is ToolError {
    return value instanceof Error && value.name === "ToolError";
  }
}
