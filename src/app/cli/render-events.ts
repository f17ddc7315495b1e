import type { AgentEvent } from "../../event/index.js";

const ansi = (code: string) => (text: string) => `\u001b[${code}m${text}\u001b[0m`;
const plain = (text: string) => text;

export interface RenderOptions {
  color?: boolean;
}

/**
 * Turns events into terminal text as they arrive: streamed text, dimmed thinking, tool calls with
 * their arguments, tool output and results. Stateful (it remembers what is open), one per stream.
 */
export class EventRenderer {
  private readonly dim: (t: string) => string;
  private readonly cyan: (t: string) => string;
  private readonly yellow: (t: string) => string;
  private readonly red: (t: string) => string;
  private readonly green: (t: string) => string;
  private atLineStart = true;

  constructor(options: RenderOptions = {}) {
    const color = options.color ?? false;
    this.dim = color ? ansi("2") : plain;
    this.cyan = color ? ansi("36") : plain;
    this.yellow = color ? ansi("33") : plain;
    this.red = color ? ansi("31") : plain;
    this.green = color ? ansi("32") : plain;
  }

  /** The text to print for one event (often empty). */
  render(event: AgentEvent): string {
    switch (event.type) {
      case "THINKING_BLOCK_START":
        return this.line(this.dim("thinking: "));
      case "THINKING_BLOCK_DELTA":
        return this.write(this.dim(event.delta));
      case "TEXT_BLOCK_START":
        return this.line("");
      case "TEXT_BLOCK_DELTA":
        return this.write(event.delta);
      case "HINT_BLOCK":
        return this.line(this.dim(`hint: ${event.text}`));
      case "TOOL_CALL_START":
        return this.line(this.cyan(`→ ${event.toolCallName} `));
      case "TOOL_CALL_DELTA":
        return this.write(this.cyan(event.delta));
      case "TOOL_RESULT_START":
        return this.line(this.dim(`  ${event.toolCallName} ⇒ `));
      case "TOOL_RESULT_TEXT_DELTA":
        return this.write(this.dim(event.delta.replaceAll("\n", "\n    ")));
      case "TOOL_RESULT_DATA_DELTA":
        return this.write(this.dim(`[${event.mediaType}]`));
      case "TOOL_RESULT_END": {
        const mark = event.state === "success" ? this.green("✓") : this.red(`✗ ${event.state}`);
        return this.write(` ${mark}`);
      }
      case "REQUIRE_USER_CONFIRM":
        return this.line(
          this.yellow(
            event.toolCalls
              .map((call) => `? ${call.name} ${call.input}${call.reason ? ` (${call.reason})` : ""}`)
              .join("\n"),
          ),
        );
      case "REQUIRE_EXTERNAL_EXECUTION":
        return this.line(
          this.yellow(event.toolCalls.map((c) => `⇢ runs elsewhere: ${c.name} ${c.input}`).join("\n")),
        );
      case "ALL_TOOLS_DENIED":
        return this.line(this.yellow("every tool call was refused"));
      case "EXCEED_MAX_ITERS":
        return this.line(this.yellow(`stopped after ${event.maxIters} iterations`));
      case "REQUEST_STOP":
        return this.line(this.yellow(`stop requested${event.reason ? `: ${event.reason}` : ""}`));
      case "REPLY_END": {
        const tail = event.finishedReason === "completed" ? "" : this.red(`[${event.finishedReason}]`);
        const error = event.error ? this.red(` ${event.error.type}: ${event.error.message}`) : "";
        return `${this.line(tail + error)}${this.atLineStart ? "" : "\n"}`;
      }
      default:
        return "";
    }
  }

  private line(text: string): string {
    const prefix = this.atLineStart ? "" : "\n";
    this.atLineStart = text === "" ? true : text.endsWith("\n");
    if (text === "") return prefix;
    return prefix + text;
  }

  private write(text: string): string {
    if (text !== "") this.atLineStart = text.endsWith("\n");
    return text;
  }
}
