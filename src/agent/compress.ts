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
  const summaryModel = config.context.summaryModel ?? config.model;
  const pricing = config.pricing;
  await compressState(state, config.model, summaryModel, config.context, {
    signal: options.signal,
    // The summary call is a model call like any other: priced when the agent has a pricing table.
    emit: (event) =>
      run.emitInit(
        pricing && event.type === "MODEL_CALL_END" && event.error === undefined
          ? { ...event, cost: pricing.cost(summaryModel.provider, event.modelName, event) }
          : event,
      ),
    trigger,
  });
  await run.send();
  return true;
}
