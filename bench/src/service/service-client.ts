/**
 * Opens <streams> concurrent reply streams on the service (POST /v1/sessions, then POST
 * /v1/sessions/:id/replies with Accept: text/event-stream) and measures, for every TEXT_BLOCK_DELTA,
 * the delay from the time the model emitted it (its text) to the time this process parsed it.
 * argv: <baseURL> <streams> <deltasPerStream>. Prints one JSON line on stdout.
 */
import { Agent, request } from "node:http";

const [baseURL = "", streamsText = "1000", deltasText = "20"] = process.argv.slice(2);
const streams = Number(streamsText);
const deltas = Number(deltasText);
const agent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
const now = () => performance.timeOrigin + performance.now();

function post(path: string, body: unknown, accept: string, onData?: (text: string) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${baseURL}${path}`,
      { method: "POST", agent, headers: { "content-type": "application/json", accept } },
      (res) => {
        res.setEncoding("utf8");
        let text = "";
        res.on("data", (chunk: string) => {
          if (onData) onData(chunk);
          else text += chunk;
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
let opened = 0;
let completed = 0;
const errors: string[] = [];

async function oneStream(): Promise<void> {
  const { sessionId } = JSON.parse(await post("/v1/sessions", {}, "application/json")) as {
    sessionId: string;
  };
  let buffer = "";
  let seen = 0;
  let first = true;
  await post(`/v1/sessions/${sessionId}/replies`, { text: "go" }, "text/event-stream", (chunk) => {
    if (first) {
      first = false;
      opened += 1;
    }
    buffer += chunk;
    let end = buffer.indexOf("\n\n");
    while (end !== -1) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf("\n\n");
      if (!frame.includes("event: TEXT_BLOCK_DELTA")) continue;
      const data = frame.slice(frame.indexOf("data: ") + 6);
      const emitted = Number.parseFloat((JSON.parse(data) as { delta: string }).delta);
      delays.push(now() - emitted);
      seen += 1;
    }
  });
  if (seen !== deltas) throw new Error(`a stream ended after ${seen} of ${deltas} deltas`);
  completed += 1;
}

const started = now();
const results = await Promise.allSettled(Array.from({ length: streams }, oneStream));
for (const result of results) if (result.status === "rejected") errors.push(String(result.reason));
delays.sort((a, b) => a - b);
const pick = (p: number) =>
  delays[Math.min(delays.length - 1, Math.max(0, Math.ceil((p / 100) * delays.length) - 1))];
process.stdout.write(
  `${JSON.stringify({
    streams,
    opened,
    completed,
    events: delays.length,
    p50: pick(50),
    p99: pick(99),
    max: delays.at(-1),
    wallMs: now() - started,
    errors: errors.slice(0, 3),
    errorCount: errors.length,
  })}\n`,
);
agent.destroy();
