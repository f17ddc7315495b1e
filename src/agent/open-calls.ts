import type { Msg, ToolCallBlock, ToolResultBlock } from "../message/index.js";

/**
 * Tool calls of `msg` that have no result yet, in the order the model made them. Built-in tool runs
 * of the provider (`executedBy: "provider"`) are never open: the agent does not run or wait on them.
 */
export function openCalls(msg: Pick<Msg, "content">): ToolCallBlock[] {
  const answered = new Set<string>();
  for (const block of msg.content) if (block.type === "tool_result") answered.add(block.id);
  return msg.content.filter(
    (b): b is ToolCallBlock => b.type === "tool_call" && b.executedBy !== "provider" && !answered.has(b.id),
  );
}

/** The results of the given calls, by call id. */
export function resultsOf(msg: Msg, ids: ReadonlySet<string>): ToolResultBlock[] {
  return msg.content.filter((b): b is ToolResultBlock => b.type === "tool_result" && ids.has(b.id));
}

/**
 * Splits calls into batches: a run of concurrency-safe calls forms one parallel batch; every other
 * call is a batch of its own, run in order.
 */
export function splitBatches<T>(
  calls: T[],
  isSafe: (call: T) => boolean,
): Array<{ parallel: boolean; calls: T[] }> {
  const batches: Array<{ parallel: boolean; calls: T[] }> = [];
  for (const call of calls) {
    const safe = isSafe(call);
    const last = batches[batches.length - 1];
    if (safe && last?.parallel) last.calls.push(call);
    else batches.push({ parallel: safe, calls: [call] });
  }
  return batches;
}

/** The tool calls of the last reasoning step: the trailing calls of `msg`, looking past their results. */
export function lastStepCalls(msg: Msg): ToolCallBlock[] {
  const calls: ToolCallBlock[] = [];
  for (let i = msg.content.length - 1; i >= 0; i--) {
    const block = msg.content[i]!;
    if (block.type === "tool_call") {
      if (block.executedBy !== "provider") calls.unshift(block);
    } else if (block.type !== "tool_result") break;
  }
  return calls;
}
