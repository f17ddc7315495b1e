import { iterateTrace } from "../../trace/jsonl-writer.js";
import { EventRenderer, type RenderOptions } from "./render-events.js";

/** Where replayed text goes: `process.stdout` or anything with `write(text)`. */
export interface ReplayOutput {
  write(text: string): unknown;
}

/**
 * `agentscope replay FILE`: prints a JSONL trace as the CLI showed it live. Returns the number of
 * events replayed; a bad line throws a TraceFileError naming it (after printing the lines before it).
 */
export async function replayTrace(
  file: string,
  out: ReplayOutput,
  options: RenderOptions = {},
): Promise<number> {
  const renderer = new EventRenderer(options);
  let count = 0;
  for await (const event of iterateTrace(file)) {
    const text = renderer.render(event);
    if (text !== "") out.write(text);
    count += 1;
  }
  return count;
}
