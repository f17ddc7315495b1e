import { spawn } from "node:child_process";
import type { ProcessRequest, ProcessRunner } from "../process-runner.js";
import { withCommandEnvironment } from "./bash-environment.js";
import { ChunkQueue } from "./chunk-queue.js";

/** A program to start with its arguments, plus the limits of `ProcessRequest`. */
export interface ProgramLaunch extends Omit<ProcessRequest, "command" | "env"> {
  file: string;
  args: string[];
  /** Its whole environment (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** Turns a failure to start `file` into the error the stream ends with. */
  describeStartError?: (error: NodeJS.ErrnoException) => Error;
}

/**
 * Starts a program in its own process group and streams stdout and stderr as they come. Ends
 * with a line giving the exit code when it is not 0; a timeout or the output limit kills the group
 * and says so; an abort kills the group and rethrows the signal's reason.
 */
export function runProgram(launch: ProgramLaunch): AsyncIterable<string> {
  const queue = new ChunkQueue<string>();
  if (launch.signal.aborted) {
    queue.end({ error: launch.signal.reason });
    return queue;
  }
  const child = spawn(launch.file, launch.args, {
    cwd: launch.cwd,
    env: launch.env ?? process.env,
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
    const room = launch.maxOutputChars - emitted;
    if (text.length <= room) {
      emitted += text.length;
      queue.push(text);
      return;
    }
    if (room > 0) queue.push(text.slice(0, room));
    emitted = launch.maxOutputChars;
    killGroup("limit");
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const timer = setTimeout(() => killGroup("timeout"), launch.timeoutMs);
  const onAbort = () => killGroup("abort");
  launch.signal.addEventListener("abort", onAbort, { once: true });
  const finish = () => {
    clearTimeout(timer);
    launch.signal.removeEventListener("abort", onAbort);
  };
  child.on("error", (error: NodeJS.ErrnoException) => {
    finish();
    const failure =
      launch.describeStartError?.(error) ?? new Error(`could not start ${launch.file}: ${error.message}`);
    queue.end({ error: failure });
  });
  child.on("close", (code, signal) => {
    finish();
    if (stopped === "abort") return queue.end({ error: launch.signal.reason });
    const tail = emitted > 0 ? "\n" : "";
    if (stopped === "timeout")
      queue.push(`${tail}[timed out after ${launch.timeoutMs} ms; the command was killed]`);
    else if (stopped === "limit") {
      queue.push(
        `${tail}[output limit of ${launch.maxOutputChars} characters reached; the command was killed]`,
      );
    } else if (code !== 0) queue.push(`${tail}[exit code ${code ?? signal}]`);
    else if (emitted === 0) queue.push("(no output)");
    queue.end();
  });
  return queue;
}

export interface LocalProcessRunnerOptions {
  /** The shell that runs the command (default `bash`). */
  shell?: string;
  /** Environment of the command (default: this process's). */
  env?: NodeJS.ProcessEnv;
}

/**
 * Runs commands on the host with `<shell> -c`, in their own process group, in `env` (default this
 * process's) with the request's variables on top.
 */
export function localProcessRunner(options: LocalProcessRunnerOptions = {}): ProcessRunner {
  const shell = options.shell ?? "bash";
  return {
    kind: "local",
    run: ({ command, env, ...limits }) =>
      runProgram({
        ...limits,
        file: shell,
        args: ["-c", command],
        env: env === undefined ? options.env : withCommandEnvironment(options.env ?? process.env, env),
      }),
  };
}
