import {
  type ContentBlock,
  type HintBlock,
  isProviderExecuted,
  type Msg,
  type ToolCallBlock,
  type ToolResultBlock,
} from "../message/index.js";
import { providerRunText } from "./provider-kit/provider-runs.js";

/** The output of the synthetic result given to a tool call that has none in the history. */
export const MISSING_TOOL_RESULT =
  "Error: this tool call has no result (it was interrupted or its result was lost). Do not assume it ran.";

export interface NormalizeOptions {
  /** The provider family the messages go to; thinking stamped with another provider is foreign. */
  provider: string;
  /** Foreign thinking becomes a `<thinking>` text block ("text", the default) or goes ("drop"). */
  foreignThinking?: "text" | "drop";
  /**
   * Built-in tool runs stamped with `provider` stay blocks (the formatter sends their wire items
   * back). Unset, or a run of another provider: the call goes and its result becomes a text summary.
   */
  keepProviderRuns?: boolean;
}

/**
 * Repairs history before any formatter sees it (pure; unchanged messages are returned as is):
 * every tool_call gets a result (a synthetic error one after its run when missing), results without a
 * call go, empty text and thinking blocks go, thinking from another provider becomes text or goes,
 * and hint blocks leave the assistant message as a user message at their place (after the tool run
 * they sit in, so calls and results stay together). Messages left empty go.
 */
export function normalizeMessages(messages: readonly Msg[], options: NormalizeOptions): Msg[] {
  const callIds = new Set<string>();
  const resultIds = new Set<string>();
  for (const msg of messages) {
    for (const block of msg.content) {
      if (block.type === "tool_call") callIds.add(block.id);
      else if (block.type === "tool_result") resultIds.add(block.id);
    }
  }
  const calls = new Map<string, ToolCallBlock>();
  const out: Msg[] = [];
  for (const msg of messages) {
    if (msg.role !== "assistant") {
      const content = msg.content.filter(keepBlock);
      if (content.length === 0) continue;
      if (content.length === msg.content.length) out.push(msg);
      else out.push({ ...msg, content });
      continue;
    }
    normalizeAssistant(msg, options, callIds, resultIds, calls, out);
  }
  return out;
}

function keepBlock(block: ContentBlock): boolean {
  if (block.type === "text") return block.text.trim() !== "";
  // A signature alone is kept: Anthropic's omitted thinking and Gemini's thought signatures must go back;
  // so is an item id alone (Responses reasoning items of stored conversations, web search, tools).
  if (block.type === "thinking")
    return (
      block.thinking !== "" ||
      block.redactedData !== undefined ||
      block.signature !== undefined ||
      block.itemId !== undefined
    );
  return true;
}

function isToolBlock(block: ContentBlock): block is ToolCallBlock | ToolResultBlock {
  return block.type === "tool_call" || block.type === "tool_result";
}

function normalizeAssistant(
  msg: Msg,
  options: NormalizeOptions,
  callIds: ReadonlySet<string>,
  resultIds: ReadonlySet<string>,
  calls: Map<string, ToolCallBlock>,
  out: Msg[],
): void {
  let changed = false;
  let part: ContentBlock[] = [];
  const parts: Array<ContentBlock[] | Msg> = [];
  let pendingHints: HintBlock[] = [];
  let runCalls: ToolCallBlock[] = [];
  const closeRun = () => {
    for (const call of runCalls) {
      if (resultIds.has(call.id)) continue;
      part.push({
        type: "tool_result",
        id: call.id,
        name: call.name,
        output: MISSING_TOOL_RESULT,
        state: "error",
      });
      changed = true;
    }
    runCalls = [];
    if (pendingHints.length > 0) {
      parts.push(part, hintMsg(msg, pendingHints, parts.length));
      part = [];
      pendingHints = [];
    }
  };
  for (const block of msg.content) {
    if (!isToolBlock(block) && block.type !== "hint" && runCalls.length > 0) closeRun();
    if (!keepBlock(block)) {
      changed = true;
      continue;
    }
    if (isProviderExecuted(block)) {
      // A built-in tool run: the provider that ran it gets it back as it came; others read a summary.
      if (options.keepProviderRuns && block.provider === options.provider) {
        part.push(block);
        continue;
      }
      changed = true;
      if (block.type === "tool_call") calls.set(block.id, block);
      else part.push({ type: "text", id: block.id, text: providerRunText(block, calls.get(block.id)) });
      continue;
    }
    switch (block.type) {
      case "tool_call":
        runCalls.push(block);
        part.push(block);
        break;
      case "tool_result":
        if (callIds.has(block.id)) part.push(block);
        else changed = true;
        break;
      case "hint":
        changed = true;
        pendingHints.push(block);
        if (runCalls.length === 0) closeRun();
        break;
      case "thinking": {
        if (block.provider === options.provider) {
          part.push(block);
          break;
        }
        changed = true;
        if ((options.foreignThinking ?? "text") === "text" && block.thinking !== "") {
          part.push({ type: "text", id: block.id, text: `<thinking>${block.thinking}</thinking>` });
        }
        break;
      }
      default:
        part.push(block);
    }
  }
  closeRun();
  if (!changed) {
    if (msg.content.length > 0) out.push(msg);
    return;
  }
  parts.push(part);
  for (const item of parts) {
    if (!Array.isArray(item)) out.push(item);
    else if (item.length > 0) out.push({ ...msg, content: item });
  }
}

function hintMsg(msg: Msg, hints: HintBlock[], index: number): Msg {
  return {
    id: `${msg.id}_hint${index}`,
    name: "user",
    role: "user",
    content: hints.map((hint) => ({ type: "text", id: hint.id, text: hint.text })),
    metadata: { hint: true },
    createdAt: msg.createdAt,
  };
}
