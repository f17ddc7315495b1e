import type { Msg } from "../message/index.js";
import { systemMsg, textOf, userMsg } from "../message/index.js";
import type { ChatFinal, ChatModel } from "../model/core.js";

/**
 * The text a judge model answers to `prompt` (its system prompt) about `text` (the user message);
 * its final chunk goes to `report` (the check's `reportModelCall`), so the call's cost is counted.
 */
export async function modelAnswer(
  model: ChatModel,
  prompt: string,
  text: string,
  signal: AbortSignal,
  report?: (model: ChatModel, final: ChatFinal) => void,
): Promise<string> {
  const messages: Msg[] = [systemMsg(prompt), userMsg(text)];
  let answer = "";
  for await (const chunk of model.stream(messages, { signal })) {
    if (chunk.type !== "final") continue;
    answer = textOf({ content: chunk.content } as Msg);
    report?.(model, chunk);
  }
  return answer;
}
