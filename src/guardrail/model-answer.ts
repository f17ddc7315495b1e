import type { Msg } from "../message/index.js";
import { systemMsg, textOf, userMsg } from "../message/index.js";
import type { ChatModel } from "../model/core.js";

/** The text a judge model answers to `prompt` (its system prompt) about `text` (the user message). */
export async function modelAnswer(
  model: ChatModel,
  prompt: string,
  text: string,
  signal: AbortSignal,
): Promise<string> {
  const messages: Msg[] = [systemMsg(prompt), userMsg(text)];
  let answer = "";
  for await (const chunk of model.stream(messages, { signal })) {
    if (chunk.type === "final") answer = textOf({ content: chunk.content } as Msg);
  }
  return answer;
}
