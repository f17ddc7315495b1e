/** S1–S3: the same work for every client, each result checked against what the mock sent. */
import type { BenchClient } from "./clients/client.js";
import { ANSWER_DELTAS, expectedText } from "./sse-script.js";

export interface Scenario {
  id: string;
  title: string;
  /** Runs the scenario once with `client`; throws when the client assembled the wrong thing. */
  run(client: BenchClient): Promise<void>;
}

function check(client: BenchClient, what: string, got: string, want: string): void {
  if (got !== want) {
    throw new Error(
      `${client.name} assembled the wrong ${what}: ${got.length} chars, expected ${want.length} (starts "${got.slice(0, 40)}")`,
    );
  }
}

export const S1_DELTAS = 10_000;
export const S2_ROUND_TRIPS = 200;
export const S3_REPLIES = 100;
export const S3_DELTAS = 1_000;

const s1Text = expectedText(S1_DELTAS);
const s3Text = expectedText(S3_DELTAS);
const answer = expectedText(ANSWER_DELTAS);

export const SCENARIOS: Scenario[] = [
  {
    id: "S1",
    title: `one reply streaming ${S1_DELTAS.toLocaleString("en")} text deltas`,
    async run(client) {
      check(client, "S1 text", await client.text(`text-${S1_DELTAS}`), s1Text);
    },
  },
  {
    id: "S2",
    title: `${S2_ROUND_TRIPS} sequential tool round trips (call, run the tool, answer)`,
    async run(client) {
      for (let i = 0; i < S2_ROUND_TRIPS; i++)
        check(client, "S2 answer", await client.toolRoundTrip(), answer);
    },
  },
  {
    id: "S3",
    title: `${S3_REPLIES} concurrent replies of ${S3_DELTAS.toLocaleString("en")} deltas`,
    async run(client) {
      const texts = await Promise.all(
        Array.from({ length: S3_REPLIES }, () => client.text(`text-${S3_DELTAS}`)),
      );
      for (const text of texts) check(client, "S3 text", text, s3Text);
    },
  },
];
