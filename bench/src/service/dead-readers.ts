/**
 * Dead readers: one user opens N event streams that never read (raw TCP sockets: the request is
 * sent, the response's first bytes read, then nothing), each on a session whose log is LOG_KIB KiB,
 * so every socket's buffers fill. Meanwhile another user runs replies over SSE. Reports how many of
 * the dead streams were accepted, refused (429) and dropped by the server, the kernel's TCP memory
 * (/proc/net/sockstat), the server's RSS, and the other user's reply latency before the dead
 * readers came and while they are (or were) there. Runs the service from the source through tsx.
 *   tsx src/service/dead-readers.ts --readers=1000 --log-kib=1024 --replies=200 \
 *     --limits=off|on|default [--write-timeout-ms=5000] [--settle-ms=N]
 * `off`: no limits (the service before streams were bounded); `on`: the write timeout and the
 * unsent-bytes bound, with the per-user stream limit raised above N (so the drop is what is
 * measured); `default`: the shipped defaults (64 streams per user, 30 s write timeout).
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { spawnTsx, waitForLine } from "../mock-process.js";

const flag = (name: string, fallback: string) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const readers = Number(flag("readers", "1000"));
const logKib = Number(flag("log-kib", "1024"));
const replies = Number(flag("replies", "200"));
const mode = flag("limits", "on");
const writeTimeoutMs = Number(flag("write-timeout-ms", "5000"));
const NEVER = 2 ** 31 - 1; // the longest timer Node keeps
const limits =
  mode === "off"
    ? { maxStreamsPerUser: NEVER, writeTimeoutMs: NEVER, maxUnsentBytes: NEVER }
    : mode === "on"
      ? { maxStreamsPerUser: readers + 100, writeTimeoutMs }
      : {};
// the write timeout, the watch's look (a quarter of it, at most 10 s), and a margin
const timeoutMs = mode === "default" ? 30_000 : writeTimeoutMs;
const settleMs = Number(flag("settle-ms", String(timeoutMs + Math.min(10_000, timeoutMs / 4) + 3000)));

/** The kernel's TCP memory in MiB (pages × 4 KiB), from /proc/net/sockstat. */
function kernelTcpMiB(): number {
  const pages = /TCP:.* mem (\d+)/.exec(readFileSync("/proc/net/sockstat", "utf8"))?.[1];
  return pages === undefined ? Number.NaN : Math.round((Number(pages) * 4096) / 2 ** 20);
}

/**
 * Socket memory (MiB) of the server's side of its connections (`ss`: receive + send queue memory of
 * every socket on the server's port, closed ones still sending included); the driver's own sockets
 * (the dead readers' receive buffers) are on this machine too, and counted apart.
 */
function socketMiB(filter: string): number {
  let out = "";
  try {
    out = execFileSync("ss", ["-tmnH", filter], { encoding: "utf8", maxBuffer: 64 * 2 ** 20 });
  } catch {
    return Number.NaN;
  }
  let bytes = 0;
  for (const match of out.matchAll(/skmem:\(r(\d+),rb\d+,t(\d+),tb\d+,f\d+,w(\d+)/g))
    bytes += Number(match[1]) + Number(match[3]);
  return Math.round(bytes / 2 ** 20);
}

const server = spawnTsx(new URL("./dead-readers-server.ts", import.meta.url).href, [
  JSON.stringify(limits),
  "50",
  String(logKib),
]);
const port = Number(await waitForLine(server, /listening (\d+)/, "the dead-readers server"));
const base = `http://127.0.0.1:${port}`;
let lastStat = { rss: 0, sockets: 0, deadStreams: 0 };
server.stdout!.on("data", (data: Buffer) => {
  const lines = data
    .toString()
    .split("\n")
    .filter((l) => l.startsWith("stat "));
  if (lines.length) lastStat = JSON.parse(lines.at(-1)!.slice(5));
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const auth = (token: string) => ({ authorization: `Bearer ${token}`, "content-type": "application/json" });

/** One reply of the live user over SSE, read to its end: ms from the request to the stream's end. */
async function liveReply(sessionId: string): Promise<number> {
  const start = performance.now();
  const response = await fetch(`${base}/v1/sessions/${sessionId}/replies`, {
    method: "POST",
    headers: { ...auth("live"), accept: "text/event-stream" },
    body: JSON.stringify({ text: "go" }),
  });
  if (response.status !== 200) throw new Error(`live reply: ${response.status} ${await response.text()}`);
  await response.text();
  return performance.now() - start;
}

/** `replies` live replies, 4 sessions at a time; p50 / p99 / max latency in ms. */
async function liveLoad(): Promise<{ p50: number; p99: number; max: number }> {
  const sessions = await Promise.all(
    Array.from({ length: 4 }, async () => {
      const response = await fetch(`${base}/v1/sessions`, {
        method: "POST",
        headers: auth("live"),
        body: "{}",
      });
      return ((await response.json()) as { sessionId: string }).sessionId;
    }),
  );
  const times: number[] = [];
  await Promise.all(
    sessions.map(async (id) => {
      for (let i = 0; i < replies / sessions.length; i++) times.push(await liveReply(id));
    }),
  );
  times.sort((a, b) => a - b);
  const at = (q: number) =>
    Number(times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(1));
  return { p50: at(0.5), p99: at(0.99), max: at(1) };
}

/** A stream that never reads: sends the request, reads the status line, then pauses for good. */
function deadReader(): Promise<{ socket: Socket; status: number }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("error", reject);
    socket.once("connect", () =>
      socket.write(
        "GET /v1/sessions/big/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer dead\r\nAccept: text/event-stream\r\n\r\n",
      ),
    );
    socket.once("data", (chunk: Buffer) => {
      socket.pause();
      socket.removeAllListeners("error");
      socket.on("error", () => {});
      resolve({ socket, status: Number(/^HTTP\/1\.1 (\d+)/.exec(chunk.toString("latin1"))?.[1] ?? 0) });
    });
  });
}

const serverSide = () => socketMiB(`sport = :${port}`);
const clientSide = () => socketMiB(`dport = :${port}`);
await liveLoad(); // warm-up: the JIT, not the dead readers, would set the first figures
const kernelBefore = kernelTcpMiB();
const before = await liveLoad();
const opened: Array<{ socket: Socket; status: number }> = [];
for (let i = 0; i < readers; i += 100)
  opened.push(...(await Promise.all(Array.from({ length: Math.min(100, readers - i) }, deadReader))));
const accepted = opened.filter((o) => o.status === 200).length;
const refused = opened.filter((o) => o.status === 429).length;
await sleep(1000);
const heldStreams = lastStat.deadStreams;
const kernelHeld = kernelTcpMiB();
const serverSocketsHeld = serverSide();
const clientSocketsHeld = clientSide();
const rssHeld = Math.round(lastStat.rss / 2 ** 20);
const during = await liveLoad();
await sleep(Math.max(0, settleMs - 1000));
const kernelAfter = kernelTcpMiB();
const serverSocketsAfter = serverSide();
const clientSocketsAfter = clientSide();
const after = await liveLoad();
const stillOpen = lastStat.deadStreams;
const result = {
  mode,
  limits,
  readers,
  logKib,
  replies,
  accepted,
  refused,
  heldStreams,
  droppedByServer: accepted - stillOpen,
  stillOpenAtEnd: stillOpen,
  kernelTcpMiB: { before: kernelBefore, held: kernelHeld, afterSettle: kernelAfter },
  serverSocketMiB: { held: serverSocketsHeld, afterSettle: serverSocketsAfter },
  driverSocketMiB: { held: clientSocketsHeld, afterSettle: clientSocketsAfter },
  serverRssMiB: { held: rssHeld, end: Math.round(lastStat.rss / 2 ** 20) },
  liveReplyMs: { before, whileHeld: during, afterSettle: after },
  settleMs,
};
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
for (const { socket } of opened) socket.destroy();
server.kill("SIGTERM");
