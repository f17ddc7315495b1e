import { createInterface, type Interface } from "node:readline";

/** Lines from a stream, one at a time, with a prompt; works the same for a terminal and a pipe. */
export class LineReader {
  readonly rl: Interface;
  readonly #lines: string[] = [];
  #waiting: ((line: string | undefined) => void) | undefined;
  #closed = false;

  constructor(
    input: NodeJS.ReadableStream,
    private readonly out: NodeJS.WritableStream,
  ) {
    const terminal = (input as { isTTY?: boolean }).isTTY === true;
    this.rl = createInterface({
      input,
      output: terminal ? (out as NodeJS.WritableStream) : undefined,
      terminal,
    });
    this.rl.on("line", (line) => {
      if (this.#waiting) {
        const resolve = this.#waiting;
        this.#waiting = undefined;
        resolve(line);
      } else this.#lines.push(line);
    });
    this.rl.on("close", () => {
      this.#closed = true;
      this.#waiting?.(undefined);
      this.#waiting = undefined;
    });
  }

  /** The next line, or undefined at the end of input. */
  next(prompt: string): Promise<string | undefined> {
    this.out.write(prompt);
    const queued = this.#lines.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.#closed) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.#waiting = resolve;
    });
  }

  /** Answers the current prompt as if `line` had been typed (e.g. "n" on Ctrl-C). */
  answer(line: string): void {
    const resolve = this.#waiting;
    this.#waiting = undefined;
    if (resolve) resolve(line);
    else this.#lines.unshift(line);
  }

  close(): void {
    this.rl.close();
  }
}
