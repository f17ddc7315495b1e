import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildCheckpoints } from "../../src/app/server/config/build-checkpoints.js";
import { ConfigError, parseServiceConfig } from "../../src/app/server/config/service-config.js";
import { startServer } from "../../src/app/server/start-server.js";
import { AgentScopeClient } from "../../src/client/index.js";
import { JsonFileCheckpointStore, MySqlCheckpointStore, openCheckpointStore } from "../../src/state/index.js";
import { ScriptedModel } from "../../src/testing/index.js";

const dir = mkdtempSync(join(tmpdir(), "agentscope-ckpt-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const agents = [{ name: "main", model: new ScriptedModel([{ text: "hi" }, { text: "again" }]) }];

describe("the config's checkpoints key", () => {
  it("takes true, false or { retention } with positive whole bounds, naming the bad field otherwise", () => {
    expect(parseServiceConfig({ agents, checkpoints: true }).checkpoints).toBe(true);
    expect(
      parseServiceConfig({ agents, checkpoints: { retention: { maxCheckpoints: 50, maxBytes: 1e8 } } })
        .checkpoints,
    ).toEqual({ retention: { maxCheckpoints: 50, maxBytes: 1e8 } });
    expect(() => parseServiceConfig({ agents, checkpoints: { retention: { maxCheckpoints: 0 } } })).toThrow(
      /config: checkpoints\.retention\.maxCheckpoints: /,
    );
    expect(() => parseServiceConfig({ agents, checkpoints: { retention: { keep: 5 } } })).toThrow(
      ConfigError,
    );
    expect(() => parseServiceConfig({ agents, checkpoints: "on" })).toThrow(/config: checkpoints: /);
  });

  it("turns the service's checkpoints on (off without it), with the retention it sets", async () => {
    for (const checkpoints of [undefined, { retention: { maxCheckpoints: 2 } }]) {
      const server = await startServer({
        config: parseServiceConfig({ agents, ...(checkpoints ? { checkpoints } : {}) }),
        store: "memory:",
        port: 0,
        tokensEnv: "",
        workspaces: false,
        withoutOptionalRoutes: true,
      });
      try {
        const client = new AgentScopeClient({ baseUrl: server.url });
        const { sessionId } = await client.createSession();
        if (!checkpoints) {
          await expect(client.checkpoints(sessionId)).rejects.toThrow(/keeps no checkpoints/);
          continue;
        }
        await client.send(sessionId, "one").collect();
        await client.send(sessionId, "two").collect();
        // start, two reply ends: the retention of 2 keeps the newest two
        expect((await client.checkpoints(sessionId)).checkpoints.map((c) => c.kind)).toEqual([
          "reply_end",
          "reply_end",
        ]);
      } finally {
        await server.close();
      }
    }
  });

  it("opens the checkpoint store beside every state store family, and a store that has none is a ConfigError", async () => {
    const file = openCheckpointStore(`file:${join(dir, "states")}`);
    expect(file).toBeInstanceOf(JsonFileCheckpointStore);
    expect((file as JsonFileCheckpointStore).directory).toBe(join(dir, "states", "checkpoints"));
    const mysql = openCheckpointStore("mysql://root@127.0.0.1:3306/test", "x_");
    expect(mysql).toBeInstanceOf(MySqlCheckpointStore);
    await mysql.close();
    expect(() => buildCheckpoints(true, "mongodb://127.0.0.1/x", undefined, undefined)).toThrow(ConfigError);
    expect(() => buildCheckpoints(true, "mongodb://127.0.0.1/x", undefined, undefined)).toThrow(
      /keeps no checkpoints \(use sqlite:, redis:\/\/, postgres:\/\/, mysql:\/\/, file: or memory:\)/,
    );
    expect(buildCheckpoints(false, "memory:", undefined, undefined)).toBeUndefined();
  });
});
