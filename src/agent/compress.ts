import { compressState } from "./compress-state.js";
import type { ModelInput } from "./reason.js";
import type { ReplyRun } from "./reply-run.js";
import { countForTrigger } from "./token-count.js";

/**
 * Compress: when `input` (the next model call's) would pass the trigger, the older context is
 * summarised (see compress-state.ts): MODEL_CALL_START/END of the summary call (`purpose:
 * context_compression`), then CUSTOM `context_compressed` (or `context_truncated` when summarising
 * failed). Returns whether the context changed, so the input is built again.
 */
export async function compressIfNeeded(run: ReplyRun, input: ModelInput): Promise<boolean> {
  const { config, state, options } = run;
  const { triggerRatio = 0.8, tokenCounter } = config.context;
  const trigger = await countForTrigger(
    config.model,
    input.messages,
    input.options.tools ?? [],
    config.model.contextSize * triggerRatio,
    { counter: tokenCounter, state, signal: options.signal },
  );
  if (!trigger.over) return false;
  await compressState(state, config.model, config.context.summaryModel ?? config.model, config.context, {
    signal: options.signal,
    emit: (event) => run.emitInit(event),
    trigger,
  });
  await run.send();
  return true;
}
