import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import mysql from "mysql2/promise";
import { afterAll, describe, expect, it } from "vitest";
import { budgetOfConfig } from "../../src/app/server/config/build-budget.js";
import { ConfigError, parseServiceConfig } from "../../src/app/server/config/service-config.js";
import { startServer } from "../../src/app/server/start-server.js";
import { AgentScopeClient } from "../../src/client/index.js";
import type { Msg } from "../../src/message/index.js";
import type { ChatModel, ChatOptions } from "../../src/model/index.js";
import { openSpendCounter } from "../../src/state/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { missingService, reportMissingService, runName } from "../support/services.js";

const dir = mkdtempSync(join(tmpdir(), "agentscope-budget-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Answers every message with text, using 100 tokens. */
const textModel: ChatModel = {
  name: "text",
  provider: "scripted",
  contextSize: 100_000,
  countTokens: () => 0,
  stream: (messages: Msg[], opts?: ChatOptions) =>
    new ScriptedModel([{ text: "ok", usage: { inputTokens: 60, outputTokens: 40 } }]).stream(messages, opts),
};
const agents = [{ name: "main", model: textModel }];
const dailyTokens = { scope: "user", unit: "tokens", period: "day", hard: 150 } as const;

describe("the config's budget key", () => {
  it("takes limits in dollars or tokens, naming the bad field otherwise", () => {
    const config = parseServiceConfig({ agents, budget: { limits: [dailyTokens], counter: "memory" } });
    expect(config.budget).toEqual({ limits: [dailyTokens], counter: "memory" });
    expect(() => parseServiceConfig({ agents, budget: { limits: [] } })).toThrow(/config: budget\.limits: /);
    expect(() =>
      parseServiceConfig({ agents, budget: { limits: [{ scope: "user", unit: "euro", hard: 1 }] } }),
    ).toThrow(/config: budget\.limits\[0\]\.unit: /);
    expect(() =>
      parseServiceConfig({ agents, budget: { limits: [{ scope: "user", unit: "usd" }] } }),
    ).toThrow(/budget\.limits\[0\].*`soft`, `hard` or both/);
    expect(() => parseServiceConfig({ agents, budget: { limits: [dailyTokens], cap: 3 } })).toThrow(
      ConfigError,
    );
  });

  /** One service on `store` with the budget; its client, and the reply a session's message starts. */
  const serve = async (store: string, budget: object) => {
    const server = await startServer({
      config: parseServiceConfig({ agents, budget }),
      store,
      port: 0,
      tokensEnv: "t-alice:alice",
      workspaces: false,
      withoutOptionalRoutes: true,
    });
    const client = new AgentScopeClient({ baseUrl: server.url, token: "t-alice" });
    const reply = async () => {
      const { sessionId } = await client.createSession();
      return (await client.send(sessionId, "hello").collect()).map((event) => event.type);
    };
    return { server, client, reply };
  };

  it("counts on the service's store: the spend survives a restart, and the limit holds across it", async () => {
    const store = `sqlite:${join(dir, "store.db")}`;
    const first = await serve(store, { limits: [dailyTokens] });
    try {
      await first.reply();
      expect((await first.client.budget()).lines[0]).toMatchObject({ spent: 100, remaining: 50 });
    } finally {
      await first.server.close();
    }
    const second = await serve(store, { limits: [dailyTokens] });
    try {
      // a new process on the same store reads the same day's spend: 100, then 200 after one reply
      expect((await second.client.budget()).lines[0]).toMatchObject({ spent: 100, remaining: 50 });
      await second.reply();
      expect(await second.reply()).toContain("REQUEST_STOP");
      expect((await second.client.budget()).lines[0]).toMatchObject({ spent: 200, remaining: 0 });
    } finally {
      await second.server.close();
    }
  });

  it('counts in this process only with counter: "memory"', async () => {
    const store = `sqlite:${join(dir, "memory-counter.db")}`;
    for (let run = 0; run < 2; run++) {
      const { server, client, reply } = await serve(store, { limits: [dailyTokens], counter: "memory" });
      try {
        expect((await client.budget()).lines[0]).toMatchObject({ spent: 0 });
        await reply();
      } finally {
        await server.close();
      }
    }
  });

  it("refuses a store with no atomic counter, naming the ones that have one", async () => {
    await expect(openSpendCounter(`file:${join(dir, "files")}`)).rejects.toThrow(
      /budget: the store "file" keeps no spend counters \(use sqlite:, redis:\/\/, postgres:\/\/, mysql:\/\/ or memory:/,
    );
  });
});

for (const [name, port, url] of [
  ["Redis", 6379, "redis://127.0.0.1:6379"],
  ["PostgreSQL", 5432, "postgres://postgres@127.0.0.1:5432/test"],
  ["MySQL", 3306, "mysql://root@127.0.0.1:3306/test"],
  ["MariaDB", 3306, "mariadb://root@127.0.0.1:3306/test"],
] as const) {
  const missing = await missingService(name, port);
  describe(`openSpendCounter on ${name}`, () => {
    if (missing) return reportMissingService(missing);
    it("gives two connections one count, refusing an add past the limit on either", async () => {
      const prefix = `${runName("spend")}_`;
      const [a, b] = [await openSpendCounter(url, prefix), await openSpendCounter(url, prefix)];
      try {
        const key = `user:alice:${prefix}`;
        expect(await a.add(key, 100, { limit: 150 })).toEqual({ added: true, total: 100 });
        expect(await b.add(key, 100, { limit: 150 })).toEqual({ added: false, total: 100 });
        expect(await b.read([key])).toEqual([100]);
      } finally {
        await a.close();
        await b.close();
        if (name === "MySQL" || name === "MariaDB") await dropMySqlTable(`${prefix}spend`);
      }
    });
  });
}

async function dropMySqlTable(table: string): Promise<void> {
  const db = await mysql.createConnection("mysql://root@127.0.0.1:3306/test");
  await db.query(`DROP TABLE IF EXISTS ${table}`);
  await db.end();
}

const mysqlMissing = await missingService("MariaDB/MySQL", 3306);
describe("the config's budget on a MySQL store", () => {
  if (mysqlMissing) return reportMissingService(mysqlMissing);
  it("counts in the store's database under its prefix, the limit holding for every replica", async () => {
    const prefix = `${runName("cfg")}_`;
    const url = "mysql://root@127.0.0.1:3306/test";
    const replicas = [
      await budgetOfConfig({ limits: [dailyTokens] }, url, prefix),
      await budgetOfConfig({ limits: [dailyTokens] }, url, prefix),
    ];
    const db = await mysql.createConnection(url);
    try {
      const key = "tokens:user:alice";
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => replicas[i % 2]!.counter.add(key, 40, { limit: 150 })),
      );
      expect(results.filter((r) => r.added)).toHaveLength(3);
      expect(await replicas[1]!.counter.read([key])).toEqual([120]);
      // the counts are in the prefixed table of the store's database, where a restart finds them
      const [rows] = await db.query(`SELECT total FROM ${prefix}spend`);
      expect(rows).toEqual([{ total: 120 }]);
    } finally {
      for (const { counter } of replicas) await counter.close?.();
      await db.query(`DROP TABLE IF EXISTS ${prefix}spend`);
      await db.end();
    }
  });
});
