import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { Agent } from "../src/agent/index.js";
import type { ChatModel } from "../src/model/core.js";
import { ScriptedModel } from "../src/testing/index.js";
import { functionTool } from "../src/tool/index.js";

/** A small workspace the demo agent looks at and writes into. */
export function prepareWorkspace(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "todo.md"), "- ship the event stream\n- write the README\n");
  writeFileSync(
    join(dir, "notes.txt"),
    "The demo runs on a scripted model unless a provider is configured.\n",
  );
}

/** Two tools: one reads (runs without asking), one writes (asks first). */
export function demoTools(workspace: string) {
  const listFiles = functionTool({
    name: "list_files",
    description: "List the files in the workspace with their first line.",
    input: z.object({}),
    readOnly: true,
    execute: () =>
      readdirSync(workspace)
        .sort()
        .map((name) => `${name}: ${readFileSync(join(workspace, name), "utf8").split("\n")[0]}`)
        .join("\n"),
  });
  const saveNote = functionTool({
    name: "save_note",
    description: "Save a note into the workspace (creates or replaces the file).",
    input: z.object({ file: z.string().regex(/^[\w.-]+$/), text: z.string() }),
    suggestRules: () => ["save_note"],
    execute: ({ file, text }) => {
      writeFileSync(join(workspace, file), text);
      return `saved ${text.length} characters to ${file}`;
    },
  });
  return [listFiles, saveNote];
}

/** The scripted stand-in for a provider: thinks, lists files, saves a summary, answers. */
export function scriptedDemoModel(): ScriptedModel {
  return new ScriptedModel(
    [
      {
        thinking: "The user wants a summary of the workspace. I will look at the files first.",
        toolCalls: [{ name: "list_files", input: {} }],
      },
      (messages) => {
        const result = messages.at(-1)?.content.find((b) => b.type === "tool_result");
        const listing = typeof result?.output === "string" ? result.output : "";
        const count = listing.split("\n").filter(Boolean).length;
        return {
          text: `I found ${count} files. I'll save a short summary as summary.md.`,
          toolCalls: [
            { name: "save_note", input: { file: "summary.md", text: `# Workspace\n\n${listing}\n` } },
          ],
        };
      },
      (messages) => {
        const result = messages.at(-1)?.content.findLast((b) => b.type === "tool_result");
        return result?.state === "success"
          ? { text: "Done: summary.md lists every file in the workspace with its first line." }
          : { text: "Understood, I did not save anything. The files are listed above." };
      },
    ],
    { name: "scripted-demo", chunkSize: 3 },
  );
}

export function demoAgent(model: ChatModel, workspace: string): Agent {
  return new Agent({
    name: "demo",
    systemPrompt: "You are a careful assistant working in a small file workspace.",
    model,
    toolkit: demoTools(workspace),
  });
}
