/**
 * A fixed, deterministic run of one client for counting its work: no mock process, no socket
 * (`globalThis.fetch` answers from the mock's script, profile-fake-fetch.ts). What varies between
 * runs of the same build is then only the client's own work, so instruction counts repeat:
 *
 *   node --import tsx src/profile-hot-path.ts <client> <S1|S2|S3> <paced|batched> <warmups> <measured>
 *   valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null node --single-threaded \
 *     --import tsx src/profile-hot-path.ts agentscope S1 paced 0 1     # minus the same with measured 0
 *
 * Prints wall and CPU time of the measured runs (µs per run, and per delta or round trip). The first
 * reply of a fresh process is `0 1`; the steady state e.g. `5 10`. AGENTSCOPE_BENCH_DIST picks
 * another build; HOT_PATH_PROFILE=<file> writes a CPU profile of the measured runs only.
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { loadClientFactory } from "./clients/registry.js";
import { type FakeMode, fakeFetch } from "./profile-fake-fetch.js";
import { S1_DELTAS, S2_ROUND_TRIPS, S3_DELTAS, S3_REPLIES, SCENARIOS } from "./scenarios.js";

const [clientName = "agentscope", scenarioId = "S1", mode = "paced", warmups = "0", measured = "1"] =
  process.argv.slice(2);
const scenario = SCENARIOS.find((s) => s.id === scenarioId);
if (!scenario) throw new Error(`no scenario "${scenarioId}"`);
if (mode !== "paced" && mode !== "batched") throw new Error(`mode is paced or batched, not "${mode}"`);

async function startProfile(): Promise<Session> {
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  await session.post("Profiler.setSamplingInterval", { interval: 100 });
  await session.post("Profiler.start");
  return session;
}

async function stopProfile(session: Session, file: string): Promise<void> {
  const { profile } = await session.post("Profiler.stop");
  writeFileSync(file, JSON.stringify(profile));
  session.disconnect();
}

globalThis.fetch = fakeFetch(mode as FakeMode);
const client = await (await loadClientFactory(clientName))("http://127.0.0.1:1/v1");
for (let i = 0; i < Number(warmups); i++) await scenario.run(client);
const units = scenarioId === "S1" ? S1_DELTAS : scenarioId === "S3" ? S3_REPLIES * S3_DELTAS : S2_ROUND_TRIPS;
const profileTo = process.env.HOT_PATH_PROFILE;
const session = profileTo ? await startProfile() : undefined;
const before = process.cpuUsage();
const started = performance.now();
for (let i = 0; i < Number(measured); i++) await scenario.run(client);
const wallUs = (performance.now() - started) * 1000;
const used = process.cpuUsage(before);
if (session && profileTo) await stopProfile(session, profileTo);
const runs = Math.max(1, Number(measured));
const cpuUs = used.user + used.system;
console.log(
  JSON.stringify({
    client: client.name,
    scenario: scenarioId,
    mode,
    warmups: Number(warmups),
    measured: Number(measured),
    wallUsPerRun: Math.round(wallUs / runs),
    cpuUsPerRun: Math.round(cpuUs / runs),
    cpuUsPerUnit: Number((cpuUs / runs / units).toFixed(3)),
  }),
);
