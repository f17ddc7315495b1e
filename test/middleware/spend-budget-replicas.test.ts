import { Redis } from "ioredis";
import mysql from "mysql2/promise";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import type { AgentEvent } from "../../src/event/index.js";
import { userMsg } from "../../src/message/index.js";
import { readSpend, type SpendLimit, spendBudgetMiddleware } from "../../src/middleware/index.js";
import {
  MySqlSpendCounter,
  PostgresSpendCounter,
  RedisSpendCounter,
  type SpendCounter,
} from "../../src/state/index.js";
import { ScriptedModel, type ScriptedTurn } from "../../src/testing/index.js";
import { collect, weather } from "../agent/helpers.js";
import { missingService, reportMissingService, runName } from "../support/services.js";

// Each call uses 100 tokens; a reply wants four calls (400 tokens); twelve replies want 4,800.
const usage = { inputTokens: 70, outputTokens: 30 };
const call: ScriptedTurn = { toolCalls: [{ name: "get_weather", input: { city: "Oslo" } }], usage };
const turns: ScriptedTurn[] = [call, call, call, { text: "done", usage }];
const limits: SpendLimit[] = [{ scope: "user", period: "day", unit: "tokens", hard: 1000 }];

/** A replica: its own agents on its own client of the shared counters. */
function replica(counter: SpendCounter) {
  const budget = spendBudgetMiddleware({
    counter,
    limits,
    userOf: () => "ann",
    reservePerCall: { tokens: 100 },
  });
  return async (session: string) => {
    const model = new ScriptedModel(turns);
    const agent = new Agent({ name: "a", model, toolkit: [weather], middlewares: [budget] });
    const events = await collect(
      agent.replyStream(userMsg(`go ${session}`), { state: agent.createState(session) }),
    );
    return { events, calls: model.calls.length };
  };
}

function describeReplicas(name: string, open: () => Promise<[SpendCounter, SpendCounter]>) {
  it(`${name}: a user's daily budget holds under concurrent replies on two replicas`, async () => {
    const [a, b] = await open();
    const replicas = [replica(a), replica(b)];
    const runs = await Promise.all(Array.from({ length: 12 }, (_, i) => replicas[i % 2]!(`s${i}`)));

    // Exactly the budget was spent, and not a token more: ten calls of 100 tokens over both replicas.
    expect(runs.reduce((sum, run) => sum + run.calls, 0)).toBe(10);
    const [standing] = await readSpend(a, limits, { sessionId: "-", replyId: "-", userId: "ann" });
    expect(standing).toMatchObject({ spent: 1000, remaining: 0 });
    // Each reply either finished or was stopped by the budget, with the typed reason.
    for (const { events } of runs) {
      const end = events.at(-1) as Extract<AgentEvent, { type: "REPLY_END" }>;
      if (end.finishedReason === "completed") continue;
      expect(end.finishedReason).toBe("stopped");
      const stop = events.find((e) => e.type === "REQUEST_STOP");
      expect(stop?.metadata?.budgetStop).toMatchObject({ kind: "hard_limit", limit: limits[0] });
    }
    expect(runs.every((run) => run.events.at(-1)?.type === "REPLY_END")).toBe(true);
  });
}

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

const redisMissing = await missingService("Redis", 6379);
const pgMissing = await missingService("PostgreSQL", 5432);
const mysqlMissing = await missingService("MariaDB/MySQL", 3306);
describe("spend budgets across replicas", () => {
  if (redisMissing) reportMissingService(redisMissing);
  else
    describeReplicas("Redis", async () => {
      const prefix = `${runName("spend")}:`;
      const clients = [new Redis("redis://127.0.0.1:6379"), new Redis("redis://127.0.0.1:6379")] as const;
      cleanups.push(async () => {
        const keys = await clients[0].keys(`${prefix}*`);
        if (keys.length) await clients[0].del(...keys);
        await Promise.all(clients.map((c) => c.quit()));
      });
      return [
        new RedisSpendCounter({ client: clients[0], prefix }),
        new RedisSpendCounter({ client: clients[1], prefix }),
      ];
    });
  if (pgMissing) reportMissingService(pgMissing);
  else
    describeReplicas("PostgreSQL", async () => {
      const table = runName("spend");
      const url = "postgres://postgres@127.0.0.1:5432/test";
      const pools = [new pg.Pool({ connectionString: url }), new pg.Pool({ connectionString: url })] as const;
      cleanups.push(async () => {
        await pools[0].query(`DROP TABLE IF EXISTS ${table}`);
        await Promise.all(pools.map((p) => p.end()));
      });
      return [
        new PostgresSpendCounter({ client: pools[0], table }),
        new PostgresSpendCounter({ client: pools[1], table }),
      ];
    });
  if (mysqlMissing) reportMissingService(mysqlMissing);
  else
    describeReplicas("MySQL", async () => {
      const table = runName("spend");
      const url = "mysql://root@127.0.0.1:3306/test";
      const pools = [mysql.createPool(url), mysql.createPool(url)] as const;
      cleanups.push(async () => {
        await pools[0].query(`DROP TABLE IF EXISTS ${table}`);
        await Promise.all(pools.map((p) => p.end()));
      });
      return [
        new MySqlSpendCounter({ client: pools[0], table }),
        new MySqlSpendCounter({ client: pools[1], table }),
      ];
    });
});
