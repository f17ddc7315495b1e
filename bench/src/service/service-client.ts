/**
 * One load client (the driver starts several): creates <streams> sessions, then opens a reply stream
 * on each (POST /v1/sessions/:id/replies with Accept: text/event-stream, over one raw keep-alive
 * connection per session: SseConnection), at most <openConcurrency>
 * opening at once, and measures for every TEXT_BLOCK_DELTA the delay from the time the model emitted
 * it (its text) to the time this process parsed it, and from the time it was due (the model's
 * schedule: what a user waits for when the server falls behind). Delays are also kept apart for deltas received
 * once every stream of this client was open (the "held" phase, without the ramp's opening work).
 * With <replies> above 1 each session runs that many replies back to back, a new stream as soon as
 * the last one ends (a closed loop: every session always has a stream open). The first reply of each
 * session then asks for 1 to <deltasPerStream> deltas at random, the others for <deltasPerStream>, so
 * replies end spread evenly in time, as in a service whose conversations started at different times.
 * A session's connection stays open after its last reply, as a browser's keep-alive connection does,
 * and all are closed once every session is done; with `close` as the last argument each closes as
 * soon as its session is done (in the burst scenario, 10,000 closes within one interval).
 * argv: <baseURL> <streams> <deltasPerStream> <openConcurrency> [replies] [close]. Prints one JSON line on stdout.
 */
import { Agent, request } from "node:http";
import { SseConnection } from "./sse-connection.js";

const [
  baseURL = "",
  streamsText = "1000",
  deltasText = "20",
  concurrencyText = "200",
  repliesText = "1",
  closeText = "",
] = process.argv.slice(2);
const closeWhenDone = closeText === "close";
const replies = Number(repliesText);
const streams = Number(streamsText);
const deltas = Number(deltasText);
const openConcurrency = Number(concurrencyText);
const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
const now = () => performance.timeOrigin + performance.now();

/** POSTs JSON through node:http (session creation, before the measured phase) and answers the body. */
function post(path: string, body: unknown, accept: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${baseURL}${path}`,
      { method: "POST", agent, headers: { "content-type": "application/json", accept } },
      (res) => {
        res.setEncoding("utf8");
        let text = "";
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () =>
          (res.statusCode ?? 0) < 300
            ? resolve(text)
            : reject(new Error(`HTTP ${res.statusCode} ${path}: ${text}`)),
        );
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

const delays: number[] = [];
const heldDelays: number[] = [];
/** Held phase: receive time − the time the delta was due (the emitter's lateness included). */
const heldFromDue: number[] = [];
/** When each of those deltas was due (wall-clock ms), for the driver's timeline. */
const heldDue: number[] = [];
let opened = 0;
let open = 0;
let peakOpen = 0;
let completed = 0;
let allOpen = false;
const errors: string[] = [];

const target = new URL(baseURL);
/** Connections of sessions that are done, left open until every session is (unless closeWhenDone). */
const finishedConnections: SseConnection[] = [];

async function oneStream(
  connection: SseConnection,
  sessionId: string,
  asked: number,
  onOpen: () => void,
): Promise<void> {
  let seen = 0;
  let counted = false;
  await connection
    .post(
      `/v1/sessions/${sessionId}/replies`,
      JSON.stringify({ text: `go ${asked}` }),
      () => {
        counted = true;
        opened += 1;
        open += 1;
        peakOpen = Math.max(peakOpen, open);
        onOpen();
      },
      (frame) => {
        if (!frame.includes("event: TEXT_BLOCK_DELTA")) return;
        const data = frame.slice(frame.indexOf("data: ") + 6);
        const [emitted = 0, due = 0] = (JSON.parse(data) as { delta: string }).delta.split(" ").map(Number);
        const received = now();
        delays.push(received - emitted);
        if (allOpen) {
          heldDelays.push(received - emitted);
          heldFromDue.push(received - due);
          heldDue.push(due);
        }
        seen += 1;
      },
    )
    .finally(() => {
      if (counted) open -= 1;
    });
  if (seen !== asked) throw new Error(`a stream ended after ${seen} of ${asked} deltas`);
  completed += 1;
}

/** The session's replies, one after another; `onOpen` is called once, when the first stream opens. */
async function oneSession(sessionId: string, onOpen: () => void): Promise<void> {
  // one keep-alive connection per session, as a browser tab holding its conversation would use
  const connection = new SseConnection(target.hostname, Number(target.port));
  try {
    const first = replies > 1 ? 1 + Math.floor(Math.random() * deltas) : deltas;
    await oneStream(connection, sessionId, first, onOpen);
    for (let reply = 1; reply < replies; reply++) await oneStream(connection, sessionId, deltas, () => {});
  } finally {
    if (closeWhenDone) connection.close();
    else finishedConnections.push(connection);
  }
}

/** Runs `work` over `items` with at most `limit` started-but-not-yet-released at once. */
async function limited<T>(items: T[], limit: number, work: (item: T, release: () => void) => Promise<void>) {
  const all: Promise<void>[] = [];
  let active = 0;
  const waiting: Array<() => void> = [];
  for (const item of items) {
    if (active >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    active += 1;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      active -= 1;
      waiting.shift()?.();
    };
    const settled = work(item, release).finally(release);
    settled.catch(() => {}); // counted by allSettled below; not an unhandled rejection meanwhile
    all.push(settled);
  }
  return Promise.allSettled(all);
}

const started = now();
const sessions: string[] = [];
const created = await limited(Array.from({ length: streams }), openConcurrency, async () => {
  const { sessionId } = JSON.parse(await post("/v1/sessions", {}, "application/json")) as {
    sessionId: string;
  };
  sessions.push(sessionId);
});
for (const result of created) if (result.status === "rejected") errors.push(String(result.reason));
const sessionsMs = now() - started;
agent.destroy(); // the streams go over their own connections
const streamsStarted = now();
let openedAllMs = 0;
// Every stream is either open or failed to open: the driver may release the held replies.
let settled = 0;
const settle = () => {
  settled += 1;
  if (settled !== sessions.length) return;
  allOpen = true;
  openedAllMs = now() - streamsStarted;
  process.stdout.write("all open\n");
};
const results = await limited(sessions, openConcurrency, (sessionId, release) => {
  let counted = false;
  const onOpen = () => {
    release();
    counted = true;
    settle();
  };
  return oneSession(sessionId, onOpen).catch((error: unknown) => {
    if (!counted) settle();
    throw error;
  });
});
for (const result of results) if (result.status === "rejected") errors.push(String(result.reason));
for (const connection of finishedConnections) connection.close();
process.stdout.write(
  `${JSON.stringify({
    streams,
    opened,
    completed,
    peakOpen,
    sessionsMs,
    openedAllMs,
    wallMs: now() - started,
    delays: delays.map((d) => Math.round(d * 100) / 100),
    heldDelays: heldDelays.map((d) => Math.round(d * 100) / 100),
    heldFromDue: heldFromDue.map((d) => Math.round(d * 100) / 100),
    heldDue: heldDue.map((d) => Math.round(d)),
    errors: errors.slice(0, 3),
    errorCount: errors.length,
  })}\n`,
);
agent.destroy();
