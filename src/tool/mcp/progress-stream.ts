import type { ToolChunk } from "../types.js";

/**
 * Streams the lines `run` reports while it works, then the chunks it resolves to. A rejection of
 * `run` is thrown after the lines reported before it.
 */
export async function* streamWithProgress(
  run: (report: (line: string) => void) => Promise<ToolChunk[]>,
): AsyncGenerator<ToolChunk> {
  const lines: string[] = [];
  let done = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    const resume = wake;
    wake = undefined;
    resume?.();
  };
  const finished = run((line) => {
    if (done) return;
    lines.push(line);
    notify();
  }).finally(() => {
    done = true;
    notify();
  });
  finished.catch(() => {}); // awaited below; this only keeps an early rejection from being "unhandled"
  for (;;) {
    let line = lines.shift();
    while (line !== undefined) {
      yield line;
      line = lines.shift();
    }
    if (done) break;
    await new Promise<void>((resolve) => {
      wake = resolve;
    });
  }
  yield* await finished;
}
