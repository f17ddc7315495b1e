import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const script = fileURLToPath(new URL("./fixtures/serve-child.ts", import.meta.url));

export interface ChildServer {
  url: string;
  process: ChildProcess;
  /** SIGKILL, and wait until it is gone. */
  kill9(): Promise<void>;
  /** Everything it printed on stdout so far (its runtime's log lines start with "log "). */
  output(): string;
}

/** Starts the service in a child process (tsx) on a random 127.0.0.1 port (options: see serve-child.ts). */
export function startChildServer(
  storeUrl: string,
  countFile: string,
  options: {
    prefix?: string;
    lockTtlMs?: number;
    crash?: boolean;
    spawn?: boolean;
    sweepEveryMs?: number;
    resumeOnRecovery?: boolean;
  } = {},
): Promise<ChildServer> {
  const args = ["--import", "tsx", script, storeUrl, countFile, JSON.stringify(options)];
  const child = spawn(process.execPath, args, {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const url = /listening (\S+)/.exec(out)?.[1];
      if (url)
        resolve({
          url,
          process: child,
          output: () => out,
          kill9: () =>
            new Promise<void>((done) => {
              if (child.exitCode !== null || child.signalCode !== null) return done();
              child.once("exit", () => done());
              child.kill("SIGKILL");
            }),
        });
    });
    child.once("exit", (code) =>
      reject(new Error(`the server exited (${code}) before listening: ${stderr}`)),
    );
  });
}
