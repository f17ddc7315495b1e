/** How much the differential test runs: a fixed, bounded CI run, or a long one for a nightly job. */
export interface DifferentialSettings {
  mode: "ci" | "long";
  seed: number;
  /** Generated commands judged (each allowed one runs in the sandbox). */
  count: number;
  /** Sandboxes at once. */
  concurrency: number;
  /** For the generated run as a whole. */
  testTimeoutMs: number;
}

/** The CI run: issue #35's seed, few enough commands to stay well under a minute on 2 cores. */
export const CI_SEED = 35;
export const CI_COUNT = 600;

/**
 * Reads AGENTSCOPE_DIFFERENTIAL (unset or `ci`, or `long`), AGENTSCOPE_DIFFERENTIAL_COUNT (long
 * mode, default 20000) and AGENTSCOPE_DIFFERENTIAL_SEED (long mode, default: today's date as
 * YYYYMMDD, so each night tries new commands and a failure names the seed that reproduces it).
 */
export function differentialSettings(
  env: NodeJS.ProcessEnv = process.env,
  today = new Date(),
): DifferentialSettings {
  const mode = env.AGENTSCOPE_DIFFERENTIAL ?? "ci";
  if (mode !== "ci" && mode !== "long")
    throw new Error(`AGENTSCOPE_DIFFERENTIAL must be "ci" or "long", got ${JSON.stringify(mode)}`);
  if (mode === "ci") return { mode, seed: CI_SEED, count: CI_COUNT, concurrency: 3, testTimeoutMs: 90_000 };
  const count = whole(env.AGENTSCOPE_DIFFERENTIAL_COUNT, "AGENTSCOPE_DIFFERENTIAL_COUNT", 20_000);
  const dateSeed = Number(today.toISOString().slice(0, 10).replaceAll("-", ""));
  const seed = whole(env.AGENTSCOPE_DIFFERENTIAL_SEED, "AGENTSCOPE_DIFFERENTIAL_SEED", dateSeed);
  return { mode, seed, count, concurrency: 4, testTimeoutMs: 60_000 + count * 500 };
}

function whole(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined || value === "") return fallback;
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value)))
    throw new Error(`${name} must be a whole number, got ${JSON.stringify(value)}`);
  return Number(value);
}
