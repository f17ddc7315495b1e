import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startSubagentServer } from "./subagent-server.js";

const dir = mkdtempSync(join(tmpdir(), "agentscope-rest-nested-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const headers = { authorization: "Bearer tok-a", "content-type": "application/json" };

describe("REST confirm: a sub-agent's ask", () => {
  it("refuses an answer for a call nothing waits on (409 naming the id): nothing runs and the ask stays open", async () => {
    const { server, calls } = await startSubagentServer(`sqlite:${join(dir, "state.db")}`);
    const post = (path: string, body: unknown) =>
      fetch(`${server.url}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
    const status = async () =>
      (
        (await (await fetch(`${server.url}/v1/sessions/s1`, { headers })).json()) as {
          status: { waitingFor?: string; running: boolean };
        }
      ).status;
    try {
      await post("/v1/sessions", { sessionId: "s1", agent: "main" });
      await post("/v1/sessions/s1/replies", { text: "research it" });
      for (let i = 0; i < 100 && (await status()).waitingFor === undefined; i++)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect((await status()).waitingFor).toBe("user_confirm");

      const forged = await post("/v1/sessions/s1/confirm", {
        answers: [{ toolCallId: "call_nope", confirmed: true }],
      });
      expect(forged.status).toBe(409);
      expect(await forged.text()).toContain('unknown tool call \\"call_nope\\"');
      expect((await status()).waitingFor).toBe("user_confirm");
      expect(calls.count).toBe(0);
    } finally {
      await server.close();
    }
  });
});
