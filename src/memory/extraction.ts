import { z } from "zod";
import { transcriptOf } from "../agent/index.js";
import { AgentScopeError, type Msg, systemMsg, type Usage, userMsg } from "../message/index.js";
import type { ChatFinal, ChatModel } from "../model/index.js";
import { describeZodError, zodToJsonSchema } from "../tool/function-tool.js";
import type { MemoryRecord } from "./types.js";

/** The forced tool the extraction model answers with; its arguments are the structured output. */
export const SAVE_MEMORIES_TOOL = "save_memories";

const Operation = z.object({
  action: z.enum(["add", "update", "delete"]),
  /** update / delete: the id of a memory listed as known. */
  id: z.string().optional(),
  /** add / update: one self-contained sentence. */
  text: z.string().optional(),
  kind: z.enum(["fact", "preference"]).optional(),
});
export const MemoryOperationsSchema = z.object({ operations: z.array(Operation) });
export type MemoryOperation = z.infer<typeof Operation>;

export const EXTRACTION_INSTRUCTIONS = `You maintain the long-term memory an AI assistant keeps about its user across conversations.
Read the conversation and decide what is worth remembering for future conversations: durable facts about the user (name, role, projects, environment) and their preferences (language, tone, formats, tools, likes and dislikes). Ignore small talk, one-off requests and what the assistant said unless the user confirmed it.
Compare with the known memories and answer by calling ${SAVE_MEMORIES_TOOL} with a list of operations:
- add: a new memory ({"action":"add","kind":"fact"|"preference","text":"..."}), one self-contained sentence in the third person ("Prefers answers in French").
- update: a known memory that the conversation changes or contradicts ({"action":"update","id":"<known id>","text":"<the new sentence>"}); the newer statement wins.
- delete: a known memory the user says no longer holds ({"action":"delete","id":"<known id>"}).
Never add what a known memory already says. Return {"operations":[]} when nothing is worth remembering.`;

export interface ExtractionResult {
  operations: MemoryOperation[];
  usage: Usage;
}

/** The exchange as a transcript for the extractor: text only (hints, thinking and data left out). */
export function exchangeTranscript(msgs: Msg[]): string {
  const plain = msgs.map((msg) => ({
    ...msg,
    content: msg.content.filter((block) => block.type === "text" || block.type === "tool_call"),
  }));
  return transcriptOf(plain);
}

/**
 * Asks `model` which memories the exchange adds, updates or deletes, given the known ones (structured
 * output: a forced tool call validated against MemoryOperationsSchema). Throws an AgentScopeError
 * when the model answers without the tool or with arguments that do not fit.
 */
export async function extractMemoryOperations(
  model: ChatModel,
  msgs: Msg[],
  known: MemoryRecord[],
  signal?: AbortSignal,
): Promise<ExtractionResult> {
  const knownText =
    known.length === 0
      ? "(none)"
      : known.map((memory) => `- id ${memory.id} (${memory.kind}): ${memory.text}`).join("\n");
  const input = [
    systemMsg(EXTRACTION_INSTRUCTIONS),
    userMsg(`Known memories:\n${knownText}\n\nConversation:\n${exchangeTranscript(msgs)}`),
  ];
  const tool = {
    name: SAVE_MEMORIES_TOOL,
    description: "Records the memory operations for this conversation.",
    parameters: zodToJsonSchema(MemoryOperationsSchema),
  };
  let final: ChatFinal | undefined;
  const options = { tools: [tool], toolChoice: { name: SAVE_MEMORIES_TOOL }, ...(signal ? { signal } : {}) };
  for await (const chunk of model.stream(input, options)) {
    if (chunk.type === "final") final = chunk;
  }
  const call = final?.content.find(
    (block) => block.type === "tool_call" && block.name === SAVE_MEMORIES_TOOL,
  );
  if (!final || call?.type !== "tool_call") {
    throw extractionError(`the model answered without calling ${SAVE_MEMORIES_TOOL}`);
  }
  let args: unknown;
  try {
    args = JSON.parse(call.input || "{}");
  } catch {
    throw extractionError(`the ${SAVE_MEMORIES_TOOL} arguments are not JSON`);
  }
  const parsed = MemoryOperationsSchema.safeParse(args);
  if (!parsed.success)
    throw extractionError(`bad ${SAVE_MEMORIES_TOOL} arguments: ${describeZodError(parsed.error)}`);
  return { operations: parsed.data.operations, usage: final.usage };
}

function extractionError(message: string): AgentScopeError {
  return new AgentScopeError({
    type: "upstream",
    source: "memory",
    message: `memory extraction failed: ${message}`,
  });
}
