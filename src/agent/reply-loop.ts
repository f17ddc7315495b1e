import { newId, toErrorInfo } from "../message/index.js";
import type { ChatFinal } from "../model/core.js";
import { abortReason } from "./abort.js";
import { act } from "./act.js";
import { compressIfNeeded } from "./compress.js";
import { closeOpenCalls, finish, interrupt, stop } from "./finish.js";
import { modelInput } from "./model-input.js";
import { openCalls } from "./open-calls.js";
import { pauseForNested } from "./pause.js";
import { isInputEvent } from "./paused-reply.js";
import { reason } from "./reason.js";
import type { ReplyReader } from "./reply-reader.js";
import type { ReplyRun } from "./reply-run.js";
import { resume } from "./resume.js";
import { start } from "./start.js";
import type { ReplyInput } from "./types.js";

/**
 * One reply, pushed to `reader`: start (or resume), then act on open calls and reason, step by step,
 * until an answer, the structured output, the iteration limit, a stop, an interrupt, an error, or a
 * pause. Every way out but a pause goes through `finish`. The diagram in CONTRIBUTING.md ("How a
 * reply runs") follows this function.
 */
export async function runReply(run: ReplyRun, input: ReplyInput, reader: ReplyReader): Promise<void> {
  run.reader = reader;
  run.turn?.take(input);
  try {
    if (isInputEvent(input)) await resume(run, input);
    else start(run, input);
    await run.send();
    if (run.msg.finishedReason !== undefined) return await run.save("reply_end");
    await run.save(isInputEvent(input) ? "tool_result" : "reply_start");
    let next = await step(run);
    while (next === "go on") next = await step(run);
    if (next === "paused") await run.save("pause");
  } finally {
    run.turn?.release();
  }
}

type Next = "go on" | "paused" | "ended";

/** One step of the loop: act on the open calls, or reason once. */
async function step(run: ReplyRun): Promise<Next> {
  const signal = run.options.signal;
  if (signal?.aborted) return ended(finish(run, interrupt(run, abortReason(signal))));
  const open = openCalls(run.msg);
  if (open.length > 0) {
    if ((await act(run, open)) === "paused") return "paused";
    if (signal?.aborted) return "go on"; // closed as interrupted at the top of the next step
    if (run.stopReason !== undefined) return ended(finish(run, stop(run)));
    if (run.output.result !== undefined) return ended(finish(run, "completed"));
    return "go on";
  }
  if (pauseForNested(run.state)) return "paused";
  return reasonOnce(run);
}

/** Reasoning: the iteration limit, the middleware around it, compression, the model call, what its answer means. */
async function reasonOnce(run: ReplyRun): Promise<Next> {
  const reply = run.state.replyContext!;
  const { maxIters } = run.config;
  if (reply.iteration >= maxIters) {
    run.emit("EXCEED_MAX_ITERS", { maxIters });
    return ended(finish(run, "exceed_max_iters"));
  }
  reply.iteration += 1;
  await run.stages.beforeReasoning(reply.iteration);
  if (run.stopReason !== undefined) return ended(finish(run, stop(run)));
  await run.send();

  const prompt = run.stages.systemPrompt(run.config.systemPrompt);
  let input = modelInput(run, prompt, reply.iteration);
  if (await compressIfNeeded(run, input)) input = modelInput(run, prompt, reply.iteration);
  const reasoned = await reason(run, input);
  const final = reasoned.final;
  if (final === undefined) {
    if (reasoned.failure === undefined) return "go on"; // aborted: closed as interrupted at the top of the next step
    closeOpenCalls(run, "error", "the model call failed before this tool call was complete");
    return ended(finish(run, "error", toErrorInfo(reasoned.failure, "upstream")));
  }
  await run.send();
  // An answer that ends the reply right below is saved by that end ("reply_end").
  if (!endsTheReply(run, final)) await run.save("model_call");
  await run.stages.afterReasoning(run.msg);
  if (run.stopReason !== undefined) return ended(finish(run, stop(run)));

  // The provider paused its own turn (a long server tool run): sending the reply back resumes it.
  if (final.continueTurn || callsToRun(final)) return "go on";
  const hint = run.output.answered(final, input.options);
  if (hint === undefined) return ended(finish(run, "completed"));
  run.emit("HINT_BLOCK", { blockId: newId("blk"), text: hint });
  await run.send();
  return "go on";
}

/** Whether the answer has calls for the agent to run (the provider's own runs are done). */
function callsToRun(final: ChatFinal): boolean {
  return final.content.some((block) => block.type === "tool_call" && block.executedBy !== "provider");
}

/** Whether `final` ends the reply as it is: nothing to run, nothing to ask again, no middleware to hear of it. */
function endsTheReply(run: ReplyRun, final: ChatFinal): boolean {
  return !run.stages.wrapped && !run.output.mayAskAgain && !final.continueTurn && !callsToRun(final);
}

async function ended(finishing: Promise<void>): Promise<Next> {
  await finishing;
  return "ended";
}
