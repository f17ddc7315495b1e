import type { AgentEvent } from "../../event/index.js";
import { diffLines, type FileChange, withContext } from "../console/ui/diff.js";

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
  /** Calls whose arguments this stream already printed (an ask then names them without repeating them). */
  private readonly printedCalls = new Set<string>();

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
        this.printedCalls.add(event.toolCallId);
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
              .map(
                (call) =>
                  `? ${call.name}${this.printedCalls.has(call.id) ? "" : ` ${call.input}`} needs your approval${call.reason ? ` (${call.reason})` : ""}`,
              )
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

  /**
   * A proposed file change as a unified-style diff: a header naming the file and what it was
   * compared with, then changed lines with three lines of context (`-` removed, `+` added).
   */
  diff(change: FileChange): string {
    const lines = diffLines(change.before, change.after);
    const added = lines.filter((l) => l.kind === "added").length;
    const removed = lines.filter((l) => l.kind === "removed").length;
    const basis =
      change.basis === "file"
        ? "against the file as it is now"
        : change.basis === "new file"
          ? "new file"
          : "the call's text only (the file could not be read)";
    const body = withContext(lines).map((line) => {
      if (line.kind === "added") return this.green(`+ ${line.text}`);
      if (line.kind === "removed") return this.red(`- ${line.text}`);
      if (line.kind === "skipped") return this.dim(`  … ${line.text}`);
      return this.dim(`  ${line.text}`);
    });
    return this.line(
      `${[this.yellow(`${change.path}: +${added} −${removed} (${basis})`), ...body].join("\n")}\n`,
    );
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
