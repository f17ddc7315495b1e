import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { Msg } from "../../message/index.js";
import type { ChatModel, ChatOptions } from "../../model/core.js";
import { ScriptedModel, type ScriptedTurn } from "../../testing/index.js";
import { functionTool, type Tool, type ToolContext } from "../../tool/index.js";
import type { AgentConfig } from "../server/config/service-config.js";

/** Creates the demo workspace with two files, unless it exists. */
export function prepareDemoWorkspace(dir: string): void {
  mkdirSync(dir, { recursive: true });
  if (readdirSync(dir).length > 0) return;
  writeFileSync(join(dir, "todo.md"), "- ship the event stream\n- write the README\n");
  writeFileSync(join(dir, "notes.txt"), "The demo runs on a scripted model unless a model is configured.\n");
}

/**
 * The directory a demo tool works in: the session's workspace when the service gives it one (its
 * working directory), else `fallback`; seeded with the demo files when empty.
 */
function demoDirectory(ctx: Pick<ToolContext, "permission">, fallback: string): string {
  const dir = ctx.permission.workingDirectories[0] ?? fallback;
  prepareDemoWorkspace(dir);
  return dir;
}

/**
 * `list_files` (read-only: runs at once) and `save_note` (writes: the permission engine asks), in
 * the session's workspace (`workspace` when the service gives none).
 */
export function demoTools(workspace: string): Tool[] {
  const listFiles = functionTool({
    name: "list_files",
    description: "List the files in the workspace with their first line.",
    input: z.object({}),
    readOnly: true,
    execute: (_args, ctx) => {
      const dir = demoDirectory(ctx, workspace);
      return readdirSync(dir, { withFileTypes: true })
        .filter((entry) => entry.isFile() && !entry.name.startsWith("."))
        .map((entry) => entry.name)
        .sort()
        .map((name) => `${name}: ${readFileSync(join(dir, name), "utf8").split("\n")[0]}`)
        .join("\n");
    },
  });
  const saveNote = functionTool({
    name: "save_note",
    description: "Save a note into the workspace (creates or replaces the file).",
    input: z.object({ file: z.string().regex(/^\w[\w.-]*$/, "a plain file name"), text: z.string() }),
    suggestRules: () => ["save_note"],
    execute: ({ file, text }, ctx) => {
      writeFileSync(join(demoDirectory(ctx, workspace), file), text);
      return `saved ${text.length} characters to ${file}`;
    },
  });
  return [listFiles, saveNote] as Tool[];
}

function lastToolResult(messages: Msg[]) {
  return messages.at(-1)?.content.findLast((b) => b.type === "tool_result");
}

/** The demo's turn for a conversation: list, then save, then answer, keyed on the last tool result. */
function demoTurn(messages: Msg[]): ScriptedTurn {
  const result = lastToolResult(messages);
  if (!result || messages.at(-1)?.role === "user") {
    return {
      thinking: "The user wants a summary of the workspace. I will look at the files first.",
      toolCalls: [{ name: "list_files", input: {} }],
    };
  }
  if (result.name === "list_files") {
    const listing = typeof result.output === "string" ? result.output : "";
    const count = listing.split("\n").filter(Boolean).length;
    return {
      text: `I found ${count} files. I'll save a short summary as summary.md.`,
      toolCalls: [{ name: "save_note", input: { file: "summary.md", text: `# Workspace\n\n${listing}\n` } }],
    };
  }
  return result.state === "success"
    ? { text: "Done: summary.md lists every file in the workspace with its first line." }
    : { text: "Understood, I did not save anything. The files are listed above." };
}

/** The memory extractor's forced tool (see src/memory/extraction.ts). */
const SAVE_MEMORIES = "save_memories";

/** The extractor's answer: one fact the first time (nothing is known yet), nothing after. */
function demoMemoryTurn(messages: Msg[]): ScriptedTurn {
  const request = messages
    .at(-1)
    ?.content.map((b) => (b.type === "text" ? b.text : ""))
    .join("");
  const operations = request?.includes("Known memories:\n(none)")
    ? [{ action: "add", kind: "fact", text: "Tried the agentscope demo console." }]
    : [];
  return { toolCalls: [{ name: SAVE_MEMORIES, input: { operations } }] };
}

/**
 * The scripted stand-in for a provider. Unlike a plain ScriptedModel it never runs out: each call
 * plays the turn that fits the conversation, so every session of a server can run the demo. Asked
 * by the memory extractor (its forced save_memories tool), it remembers one fact about the user.
 */
export function demoModel(): ChatModel {
  const base = new ScriptedModel([], { name: "scripted-demo" });
  return {
    name: base.name,
    provider: base.provider,
    contextSize: base.contextSize,
    countTokens: (messages, tools) => base.countTokens(messages, tools),
    stream: (messages: Msg[], options?: ChatOptions) => {
      const choice = options?.toolChoice;
      const extracting =
        typeof choice === "object" && choice !== null && "name" in choice && choice.name === SAVE_MEMORIES;
      const turn = extracting ? demoMemoryTurn(messages) : demoTurn(messages);
      return new ScriptedModel([turn], { name: "scripted-demo", chunkSize: 3 }).stream(messages, options);
    },
  };
}

/**
 * The demo agent as a service config entry: its two demo tools and the built-in Read, Glob, Grep and
 * Bash (a real model may use them; the service contains them like any agent's), long-term memory,
 * and the user's knowledge bases read before each reply (static RAG: the excerpts are a hint). The
 * memory and knowledge need the service's `memory` and `knowledge` settings (see demoCommand).
 */
export function demoAgentConfig(workspace: string, model: ChatModel | string = demoModel()): AgentConfig {
  return {
    name: "demo",
    systemPrompt: "You are a careful assistant working in a small file workspace.",
    model,
    tools: [...demoTools(workspace), "Read", "Glob", "Grep", "Bash"],
    memory: true,
    knowledge: { bases: "all", mode: "static", topK: 2 },
  };
}
