import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { createApp } from "../../src/app/server/app.js";
import { createBackend } from "../../src/app/server/backend/create-backend.js";
import { ServiceRuntime } from "../../src/app/server/runtime/service-runtime.js";
import { appendRawEvent } from "../state/raw-event.js";
import { conversationModel } from "./fixtures/agents.js";

const dir = mkdtempSync(join(tmpdir(), "agentscope-damaged-log-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("answers a reply on a session whose stored newest event was damaged with a 500 naming the session and seq", async () => {
  const url = `sqlite:${join(dir, "state.db")}`;
  const runtime = new ServiceRuntime({
    backend: await createBackend(url, { prefix: "t_" }),
    agents: [{ name: "a", model: conversationModel({ text: "hi" }) }],
  });
  try {
    const app = createApp(runtime);
    const { sessionId } = await runtime.createSession("local");
    const reply = (text: string) =>
      app.request(`/v1/sessions/${sessionId}/replies`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ text }),
      });
    expect((await reply("first")).status).toBe(202);
    await expect
      .poll(async () => (await runtime.backend.events.last?.(sessionId))?.event.type)
      .toBe("REPLY_END");
    await expect.poll(async () => (await runtime.status("local", sessionId)).running).toBe(false);
    const newest = await runtime.backend.events.lastSeq(sessionId);
    await appendRawEvent(url, "t_", sessionId, newest + 1, "<not json>");
    const response = await reply("second");
    expect(response.status).toBe(500);
    const body = (await response.json()) as { error: { message: string } };
    expect(body.error.message).toContain(
      `event ${newest + 1} in the log of session "${sessionId}" is not JSON`,
    );
  } finally {
    await runtime.close();
  }
});
