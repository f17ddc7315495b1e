import { type Msg, systemMsg, type TextBlock } from "../message/index.js";
import { limitImages } from "./compression.js";
import type { ModelInput } from "./reason.js";
import type { ReplyRun } from "./reply-run.js";

/** On how many of the last iterations the answer is forced (structured output). */
const FORCE_ANSWER_AT = 1;

/**
 * The input of the next model call, built once per iteration: the messages (`prompt` is the system
 * prompt after the middleware hooks) and the options the answer strategy shapes.
 */
export function modelInput(run: ReplyRun, prompt: string, iteration: number): ModelInput {
  const options = run.output.request(
    run.config.toolkit.schemas(),
    iteration > run.config.maxIters - FORCE_ANSWER_AT,
  );
  const signal = run.options.signal;
  return { messages: modelMessages(run, prompt), options: signal ? { ...options, signal } : options };
}

/** The messages of the next model call, with at most `context.maxImages` images. */
export function modelMessages(run: ReplyRun, prompt: string): Msg[] {
  const { config, state } = run;
  const messages = buildModelInput(prompt, config.toolkit.groupNotes(), state.summary, state.context);
  const maxImages = config.context.maxImages;
  return maxImages === undefined ? messages : limitImages(messages, maxImages);
}

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
