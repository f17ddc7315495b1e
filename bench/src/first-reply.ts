/**
 * The first reply in a fresh process, for S1 and S3: every sample is a new process per client
 * (first-reply-child.ts), clients interleaved in a rotating order, against one mock. Reported: the
 * first reply (cold) and the second (after one warm-up reply), wall and CPU, median of the samples.
 * Steady state is what client-bench.ts measures (many replies in one long-lived process).
 */
import { type MockPacing, spawnTsx, startMock, waitForLine } from "./mock-process.js";
import { type Summary, summarize } from "./stats.js";

export interface FirstReplyResult {
  client: string;
  scenario: string;
  first: { wall: Summary; cpu: Summary };
  second: { wall: Summary; cpu: Summary };
  /** Peak RSS of the process after both replies, MiB. */
  peakRssMiB: Summary;
}

type Sample = {
  client: string;
  first: { wall: number; cpu: number };
  second: { wall: number; cpu: number };
  peakRssMiB: number;
};

async function sample(baseURL: string, client: string, scenario: string): Promise<Sample> {
  const child = spawnTsx(new URL("./first-reply-child.ts", import.meta.url).href, [
    baseURL,
    client,
    scenario,
  ]);
  const line = await waitForLine(child, /^(\{.*\})$/m, `the first-reply sample of ${client}`);
  return JSON.parse(line) as Sample;
}

export async function runFirstReplies(options: {
  samples: number;
  clients: string[];
  scenarios: string[];
  pacing?: MockPacing;
  log: (line: string) => void;
}): Promise<FirstReplyResult[]> {
  const mock = await startMock(options.pacing);
  try {
    const samples = new Map<string, Sample[]>();
    for (let i = 0; i < options.samples; i++) {
      for (const scenario of options.scenarios) {
        for (let k = 0; k < options.clients.length; k++) {
          const client = options.clients[(k + i) % options.clients.length]!;
          const key = `${client}|${scenario}`;
          samples.set(key, [...(samples.get(key) ?? []), await sample(mock.baseURL, client, scenario)]);
        }
      }
      options.log(`  first-reply sample ${i + 1}/${options.samples} done`);
    }
    for (const [key, list] of samples) {
      const rss = list.map((s) => s.peakRssMiB).sort((a, b) => a - b);
      options.log(
        `  peak RSS ${key.replace("|", " ")}: median ${rss[rss.length >> 1]} MiB (${rss.join(", ")})`,
      );
    }
    return [...samples.entries()].map(([key, list]) => ({
      client: list[0]!.client,
      scenario: key.split("|")[1]!,
      first: {
        wall: summarize(list.map((s) => s.first.wall)),
        cpu: summarize(list.map((s) => s.first.cpu)),
      },
      second: {
        wall: summarize(list.map((s) => s.second.wall)),
        cpu: summarize(list.map((s) => s.second.cpu)),
      },
      peakRssMiB: summarize(list.map((s) => s.peakRssMiB)),
    }));
  } finally {
    mock.stop();
  }
}
