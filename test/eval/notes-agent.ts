import { z } from "zod";
import { Agent, type AgentOptions } from "../../src/agent/index.js";
import type { AgentFactory } from "../../src/eval/index.js";
import { type Msg, textOf } from "../../src/message/index.js";
import type { ChatModel } from "../../src/model/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { functionTool, type Tool } from "../../src/tool/index.js";

/** The prompt of the agent the eval tests record; PROMPT_SEARCH makes its model search instead of read. */
export const PROMPT_READ = "You keep notes. Read the file the user names, then write a note.";
export const PROMPT_SEARCH = "You keep notes. Search for what the user names, then write a note.";

export const FILES: Record<string, string> = { "todo.txt": "buy milk", "plan.txt": "ship evals" };

/** read_file and search are read-only (they run at once); write_note asks for confirmation. */
export function notesTools(written: string[] = []): Tool[] {
  return [
    functionTool({
      name: "read_file",
      description: "Reads a file",
      input: z.object({ path: z.string() }),
      readOnly: true,
      execute: ({ path }) => FILES[path] ?? `no such file: ${path}`,
    }),
    functionTool({
      name: "search",
      description: "Searches the files",
      input: z.object({ query: z.string() }),
      readOnly: true,
      execute: ({ query }) =>
        Object.entries(FILES)
          .filter(([name]) => name.includes(query))
          .map(([name, text]) => `${name}: ${text}`)
          .join("\n") || "nothing found",
    }),
    functionTool({
      name: "write_note",
      description: "Writes a note",
      input: z.object({ text: z.string() }),
      execute: ({ text }) => {
        written.push(text);
        return `noted: ${text}`;
      },
    }),
  ];
}

const lastResult = (messages: Msg[]) => {
  const reply = messages.at(-1)!;
  const results = reply.content.filter((b) => b.type === "tool_result");
  const last = results.at(-1);
  return last && typeof last.output === "string" ? last.output : "";
};

/**
 * A model that follows the system prompt like a real one would: it searches or reads depending on
 * the prompt, writes a note with what it found, then answers. Deterministic, so live runs repeat.
 */
export function promptFollowingModel(replies = 1): ChatModel {
  const file = (messages: Msg[]) =>
    /\b(\w+\.txt)\b/.exec(textOf(messages.findLast((m) => m.role === "user")!))?.[1] ?? "todo.txt";
  const reply = [
    (messages: Msg[]) => {
      const system = textOf(messages[0]!);
      return system.includes("Search")
        ? { toolCalls: [{ name: "search", input: { query: file(messages).replace(".txt", "") } }] }
        : { toolCalls: [{ name: "read_file", input: { path: file(messages) } }] };
    },
    (messages: Msg[]) => ({ toolCalls: [{ name: "write_note", input: { text: lastResult(messages) } }] }),
    (messages: Msg[]) => ({ text: `Done: ${lastResult(messages)}` }),
  ];
  return new ScriptedModel(Array.from({ length: replies }, () => reply).flat());
}

export function notesAgentOptions(prompt = PROMPT_READ, written: string[] = []): Omit<AgentOptions, "model"> {
  return { name: "notes", systemPrompt: prompt, toolkit: notesTools(written) };
}

/** The agent under test as an eval factory: replay plays the recording, live the prompt-following model. */
export function notesFactory(prompt = PROMPT_READ, written: string[] = []): AgentFactory {
  return (setup) =>
    new Agent({ ...notesAgentOptions(prompt, written), model: setup.model(promptFollowingModel()) });
}
