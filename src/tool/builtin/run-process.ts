import { spawn } from "node:child_process";
import { ChunkQueue } from "./chunk-queue.js";

export interface RunProcessOptions {
  command: string;
  cwd: string;
  shell: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** Characters of output kept; past it the process group is killed. */
  maxOutputChars: number;
  signal: AbortSignal;
}

/**
 * Runs a shell command in its own process group and streams stdout and stderr as they come. Ends
 * with a line giving the exit code when it is not 0; a timeout or the output limit kills the group
 * and says so; an abort kills the group and rethrows the signal's reason.
 */
export function runProcess(options: RunProcessOptions): AsyncIterable<string> {
  const queue = new ChunkQueue<string>();
  if (options.signal.aborted) {
    queue.end({ error: options.signal.reason });
    return queue;
  }
  const child = spawn(options.shell, ["-c", options.command], {
    cwd: options.cwd,
    env: options.env ?? process.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let emitted = 0;
  let stopped: string | undefined;
  const killGroup = (why: string) => {
    if (stopped !== undefined) return;
    stopped = why;
    try {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    } catch {
      child.kill("SIGKILL");
    }
  };
  const onData = (data: Buffer) => {
    if (stopped !== undefined) return;
    const text = data.toString("utf8");
    const room = options.maxOutputChars - emitted;
    if (text.length <= room) {
      emitted += text.length;
      queue.push(text);
      return;
    }
    if (room > 0) queue.push(text.slice(0, room));
    emitted = options.maxOutputChars;
    killGroup("limit");
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const timer = setTimeout(() => killGroup("timeout"), options.timeoutMs);
  const onAbort = () => killGroup("abort");
  options.signal.addEventListener("abort", onAbort, { once: true });
  child.on("error", (error) => {
    clearTimeout(timer);
    options.signal.removeEventListener("abort", onAbort);
    queue.end({ error: new Error(`could not start ${options.shell}: ${error.message}`) });
  });
  child.on("close", (code, signal) => {
    clearTimeout(timer);
    options.signal.removeEventListener("abort", onAbort);
    if (stopped === "abort") return queue.end({ error: options.signal.reason });
    const tail = emitted > 0 ? "\n" : "";
    if (stopped === "timeout")
      queue.push(`${tail}[timed out after ${options.timeoutMs} ms; the command was killed]`);
    else if (stopped === "limit") {
      queue.push(
        `${tail}[output limit of ${options.maxOutputChars} characters reached; the command was killed]`,
      );
    } else if (code !== 0) queue.push(`${tail}[exit code ${code ?? signal}]`);
    else if (emitted === 0) queue.push("(no output)");
    queue.end();
  });
  return queue;
}
