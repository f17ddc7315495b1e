/** The service holding N concurrent SSE streams: server and load client in two processes. */
import { spawnTsx, waitForLine } from "../mock-process.js";

export interface ServiceLoadResult {
  streams: number;
  deltasPerStream: number;
  intervalMs: number;
  opened: number;
  completed: number;
  events: number;
  p50: number;
  p99: number;
  max: number;
  wallMs: number;
  errorCount: number;
  errors: string[];
  /** Peak resident memory of the server process (MiB). */
  serverRssMiB?: number;
}

export async function runServiceLoad(
  streams = 1000,
  deltas = 20,
  intervalMs = 100,
): Promise<ServiceLoadResult> {
  const server = spawnTsx(new URL("./service-server.ts", import.meta.url).href, [
    String(deltas),
    String(intervalMs),
    String(streams * 2),
  ]);
  try {
    const port = await waitForLine(server, /listening (\d+)/, "the agentscope service");
    const client = spawnTsx(new URL("./service-client.ts", import.meta.url).href, [
      `http://127.0.0.1:${port}`,
      String(streams),
      String(deltas),
    ]);
    const line = await waitForLine(client, /^(\{.*\})$/m, "the load client");
    const rss = await peakRss(server.pid);
    return { deltasPerStream: deltas, intervalMs, ...JSON.parse(line), serverRssMiB: rss };
  } finally {
    server.kill();
  }
}

async function peakRss(pid: number | undefined): Promise<number | undefined> {
  if (!pid) return undefined;
  try {
    const { readFile } = await import("node:fs/promises");
    const status = await readFile(`/proc/${pid}/status`, "utf8");
    const kb = /VmHWM:\s+(\d+)/.exec(status)?.[1];
    return kb ? Math.round(Number(kb) / 1024) : undefined;
  } catch {
    return undefined;
  }
}
