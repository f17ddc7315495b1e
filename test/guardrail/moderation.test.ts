import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { Agent, type GuardrailCheck } from "../../src/agent/index.js";
import { moderationGuardrail } from "../../src/guardrail/index.js";
import { textOf, userMsg } from "../../src/message/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { collect } from "../agent/helpers.js";

const check = (text: string): GuardrailCheck => ({
  stage: "output",
  text,
  sessionId: "s",
  replyId: "r",
  signal: new AbortController().signal,
});

describe("moderationGuardrail on a chat model", () => {
  it("trips when the judge flags the text, naming its categories; the judge saw the text", async () => {
    const judge = new ScriptedModel([{ text: "FLAGGED: violence, harassment" }]);
    const verdict = await moderationGuardrail({ model: judge }).check(
      check("I will hurt you and your family."),
    );
    expect(verdict).toEqual({
      action: "trip",
      kind: "moderation",
      reason: "flagged by moderation: violence, harassment",
    });
    expect(textOf(judge.calls[0]!.messages.at(-1)!)).toContain("I will hurt you and your family.");
  });

  it("passes what the judge calls SAFE (a false-positive control), and asks nothing for empty text", async () => {
    const judge = new ScriptedModel([{ text: "SAFE" }]);
    const guard = moderationGuardrail({ model: judge });
    expect(await guard.check(check("How do I kill a stuck process on Linux?"))).toEqual({ action: "pass" });
    expect(await guard.check(check("  "))).toEqual({ action: "pass" });
    expect(judge.calls).toHaveLength(1);
  });

  it("only the listed categories trip", async () => {
    const guard = moderationGuardrail({
      model: new ScriptedModel([{ text: "FLAGGED: profanity" }]),
      categories: ["violence"],
    });
    expect(await guard.check(check("damn it"))).toEqual({ action: "pass" });
  });

  it("an answer it cannot read throws (the agent trips with guardrail_error: unchecked text never passes)", async () => {
    const guard = moderationGuardrail({ model: new ScriptedModel([{ text: "maybe?" }]) });
    await expect(guard.check(check("text"))).rejects.toThrow(/neither FLAGGED nor SAFE/);
  });

  it("as an output guardrail it ends a reply whose answer is flagged", async () => {
    const judge = new ScriptedModel([{ text: "FLAGGED: hate" }]);
    const agent = new Agent({
      name: "a",
      model: new ScriptedModel([{ text: "a hateful answer" }]),
      guardrails: { output: [moderationGuardrail({ model: judge })] },
    });
    const events = await collect(agent.replyStream(userMsg("say something")));
    const stop = events.find((e) => e.type === "REQUEST_STOP");
    expect(stop?.metadata?.guardrailTrip).toMatchObject({
      guardrail: "moderation",
      stage: "output",
      kind: "moderation",
    });
    expect(events.at(-1)).toMatchObject({ type: "REPLY_END", finishedReason: "stopped" });
  });

  it("refuses both or neither of model and endpoint", () => {
    expect(() => moderationGuardrail({})).toThrow(/exactly one/);
  });
});

describe("moderationGuardrail on an OpenAI-style /moderations endpoint", async () => {
  const requests: Array<{ url: string; auth: string | undefined; body: { model: string; input: string } }> =
    [];
  const server = createServer(async (req: IncomingMessage, res) => {
    let raw = "";
    for await (const chunk of req) raw += chunk;
    const body = JSON.parse(raw) as { model: string; input: string };
    requests.push({ url: req.url ?? "", auth: req.headers.authorization, body });
    if (body.input === "fail") {
      res.writeHead(500).end();
      return;
    }
    const flagged = /kill you/.test(body.input);
    res.writeHead(200, { "content-type": "application/json" }).end(
      JSON.stringify({
        id: "modr-1",
        model: body.model,
        results: [
          {
            flagged,
            categories: { violence: flagged, hate: false },
            category_scores: { violence: flagged ? 0.97 : 0.01 },
          },
        ],
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const guard = moderationGuardrail({ endpoint: { baseURL, apiKey: "sk-test" } });

  it("trips on a flagged result with its categories, and sends the text, the model and the key", async () => {
    expect(await guard.check(check("I will kill you."))).toEqual({
      action: "trip",
      kind: "moderation",
      reason: "flagged by moderation: violence",
    });
    expect(requests.at(-1)).toEqual({
      url: "/v1/moderations",
      auth: "Bearer sk-test",
      body: { model: "omni-moderation-latest", input: "I will kill you." },
    });
  });

  it("passes an unflagged result (a control)", async () => {
    expect(await guard.check(check("This process will kill -9 the worker."))).toEqual({ action: "pass" });
  });

  it("an endpoint error throws rather than passing the text", async () => {
    await expect(guard.check(check("fail"))).rejects.toThrow(/answered 500/);
  });
});
