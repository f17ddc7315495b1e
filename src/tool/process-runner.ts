/**
 * How the built-in tools start processes. The interface lives here (tool/) so tools never import
 * workspace/: a workspace supplies the runner (on the host, in a bubblewrap sandbox, later in a
 * container or a remote sandbox) and the Bash tool runs every command through it.
 */

/** One shell command to run. */
export interface ProcessRequest {
  /** The command line, run by a shell (`bash -c` on the host runner). */
  command: string;
  /** Absolute directory the command starts in. */
  cwd: string;
  /** Wall-clock limit: past it the whole process tree is killed. */
  timeoutMs: number;
  /** Characters of output kept; past it the whole process tree is killed. */
  maxOutputChars: number;
  /** Aborting kills the whole process tree and ends the stream with the signal's reason. */
  signal: AbortSignal;
  /**
   * Variables to set on top of the runner's own environment (`withCommandEnvironment`). The Bash
   * tool sends BASH_COMMAND_ENVIRONMENT: a runner must apply them, since the permission check's
   * read-only verdicts assume them (`git status` writes no index under them).
   */
  env?: Readonly<Record<string, string>>;
}

/**
 * Runs commands. `run` streams stdout and stderr as they come and ends with a line giving the exit
 * code when it is not 0. Contract: a timeout, the output limit or an abort kills the *whole* process
 * tree (not just the shell); a timeout or the output limit is reported in the output (the stream
 * ends normally), an abort ends the stream with the signal's reason. A runner that cannot start the
 * command at all (e.g. its sandbox is unavailable) ends the stream with an error that says why; it
 * never falls back to running the command somewhere else.
 */
export interface ProcessRunner {
  /** Shown in docs and errors, e.g. `local` or `bubblewrap`. */
  readonly kind: string;
  run(request: ProcessRequest): AsyncIterable<string>;
}
