import { type Frame, parseFrames } from "./helpers.js";

/** An SSE stream read in the background; `until` waits for a frame without cancelling the stream. */
export function follow(response: Response) {
  const frames: Frame[] = [];
  const waiters: Array<() => void> = [];
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let raw = "";
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        raw += decoder.decode(value, { stream: true });
        const end = raw.lastIndexOf("\n\n");
        if (end < 0) continue;
        frames.push(...parseFrames(raw.slice(0, end + 2)).filter((f) => f.id !== undefined));
        raw = raw.slice(end + 2);
        for (const wake of waiters.splice(0)) wake();
      }
    } catch {
      // cancelled
    }
  })();
  return {
    frames,
    async until(test: (frames: Frame[]) => boolean, timeoutMs = 20_000): Promise<Frame[]> {
      const deadline = Date.now() + timeoutMs;
      while (!test(frames)) {
        if (Date.now() > deadline) throw new Error(`timed out; got ${frames.map((f) => f.event).join(",")}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
      return frames;
    },
    close: () => reader.cancel().catch(() => {}),
  };
}
