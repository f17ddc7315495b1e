import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Agent, Session } from "../../src/agent/index.js";
import { userMsg } from "../../src/message/index.js";
import { SqliteStateStore } from "../../src/state/index.js";
import { ScriptedModel, type ScriptedTurn } from "../../src/testing/index.js";
import { weather } from "../agent/helpers.js";
import { openTestDatabase } from "../support/sqlite-file.js";
import { canonical } from "./random-session.js";

const directory = mkdtempSync(join(tmpdir(), "agentscope-agent-saves-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe("a Session's saves through the agent", () => {
  it("are patches of the reply in flight, and the session reopens exactly", async () => {
    const path = join(directory, "agent.db");
    const replies = 40;
    const turns: ScriptedTurn[] = [];
    for (let i = 0; i < replies; i++) {
      turns.push({ toolCalls: [{ name: "get_weather", input: { city: `City ${i}` } }] });
      turns.push({ text: `It is sunny in City ${i}. `.repeat(3) });
    }
    const agent = new Agent({ name: "a", model: new ScriptedModel(turns), toolkit: [weather] });
    const store = new SqliteStateStore({ path });
    const session = await Session.open(agent, store, "agent-session");
    for (let i = 0; i < replies; i++) await session.reply(userMsg(`Weather in City ${i}?`));
    const db = await openTestDatabase(path);
    const patches = db
      .prepare<[], { bytes: number }>(
        "SELECT length(CAST(patch AS BLOB)) AS bytes FROM agentscope_state_patches WHERE session_id = 'agent-session'",
      )
      .all();
    db.close();
    expect(session.version).toBeGreaterThan(replies * 3);
    expect(patches.length, "the saves since the last snapshot are patches").toBeGreaterThan(replies * 3);
    expect(Math.max(...patches.map((p) => p.bytes))).toBeLessThan(3_000);
    expect(JSON.stringify(session.state).length).toBeGreaterThan(20_000);
    const reopened = await Session.open(agent, new SqliteStateStore({ path }), "agent-session");
    expect(reopened.version).toBe(session.version);
    expect(canonical(reopened.state)).toBe(canonical(session.state));
    await store.close();
  });
});
