import { type Msg, systemMsg, type TextBlock } from "../message/index.js";

/**
 * The messages a model sees: the system prompt (with group notes), the summary of compressed
 * context right after it, then the context, whose last Msg is the reply in flight.
 */
export function buildModelInput(
  systemPrompt: string,
  notes: string[],
  summary: string | undefined,
  context: Msg[],
) {
  const blocks: TextBlock[] = [];
  const system = notes.length > 0 ? `${systemPrompt}\n\n${notes.join("\n")}`.trim() : systemPrompt;
  if (system) blocks.push({ type: "text", id: "system", text: system });
  if (summary)
    blocks.push({ type: "text", id: "summary", text: `Summary of the earlier conversation:\n${summary}` });
  return blocks.length > 0 ? [systemMsg(blocks, { id: "system" }), ...context] : context.slice();
}
