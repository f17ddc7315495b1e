/** Starts mock-server.ts in its own process (its own event loop, its own core) and returns its base URL. */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export interface MockProcess {
  baseURL: string;
  stop(): void;
}

export function spawnTsx(script: string, args: string[] = [], nodeArgs: string[] = []): ChildProcess {
  return spawn(process.execPath, [...nodeArgs, "--import", "tsx", fileURLToPath(script), ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
}

/** Resolves with the first stdout line matching `pattern` (its first group). */
export function waitForLine(child: ChildProcess, pattern: RegExp, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = "";
    const onData = (data: Buffer) => {
      seen += data.toString();
      const match = pattern.exec(seen);
      if (match) {
        child.stdout!.off("data", onData);
        resolve(match[1]!);
      }
    };
    child.stdout!.on("data", onData);
    // "close", not "exit": a process can exit before its last stdout chunk (a long result line) is read
    child.once("close", (code) =>
      reject(new Error(`${what} exited (${code}) before it was ready: ${seen.slice(0, 2000)}`)),
    );
  });
}

/** How the mock streams: everything at once in 64 KiB writes, or one event per write (mock-server.ts). */
export interface MockPacing {
  mode: "batched" | "paced";
  /** Paced only: ms between events (0 = the next event-loop turn). */
  paceMs?: number;
}

export async function startMock(pacing: MockPacing = { mode: "batched" }): Promise<MockProcess> {
  const child = spawnTsx(new URL("./mock-server.ts", import.meta.url).href, [
    pacing.mode,
    String(pacing.paceMs ?? 0),
  ]);
  const port = await waitForLine(child, /listening (\d+)/, "the mock server");
  return { baseURL: `http://127.0.0.1:${port}/v1`, stop: () => child.kill() };
}
