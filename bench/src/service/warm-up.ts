/**
 * Warm-up replies, run by the driver before the measured load: full replies (session, deltas, the
 * run's end with its save) so the server's code for every step of a reply is compiled by the JIT, as
 * it is in a service that has been up for a minute. Without them the held burst's first reply ends
 * run the end path cold, 2,500 a second.
 */
const WARM_DELTAS = 6;

/** Runs `replies` warm-up replies on the server at `baseURL`, `concurrency` at a time; throws on any failure. */
export async function warmUp(baseURL: string, replies: number, concurrency = 50): Promise<void> {
  let next = 0;
  const one = async (): Promise<void> => {
    const created = await fetch(`${baseURL}/v1/sessions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    if (!created.ok) throw new Error(`warm-up: creating a session answered ${created.status}`);
    const { sessionId } = (await created.json()) as { sessionId: string };
    const reply = await fetch(`${baseURL}/v1/sessions/${sessionId}/replies`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ text: `warm ${WARM_DELTAS}` }),
    });
    const text = await reply.text();
    if (!reply.ok || !text.includes("event: REPLY_END"))
      throw new Error(`warm-up: a reply answered ${reply.status} without its end: ${text.slice(0, 200)}`);
  };
  const worker = async () => {
    while (next < replies) {
      next += 1;
      await one();
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, replies) }, worker));
}
