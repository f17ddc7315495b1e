import { expect, it } from "vitest";
import { Agent } from "../../src/agent/index.js";
import { AgentScopeError, userMsg } from "../../src/message/index.js";
import { ScriptedModel } from "../../src/testing/index.js";

const failing = () =>
  new Agent({
    name: "a",
    model: new ScriptedModel([{ error: { type: "authentication", message: "the API key was rejected" } }]),
  });

it("reply() resolves with the failed Msg by default: finishedReason error and the error info", async () => {
  const msg = await failing().reply(userMsg("hi"));
  expect(msg.finishedReason).toBe("error");
  expect(msg.error).toMatchObject({ type: "authentication", message: "the API key was rejected" });
});

it("reply({ throwOnError: true }) throws the typed error instead", async () => {
  const error = await failing()
    .reply(userMsg("hi"), { throwOnError: true })
    .catch((e: unknown) => e);
  expect(AgentScopeError.isInstance(error)).toBe(true);
  expect((error as AgentScopeError).info).toMatchObject({ type: "authentication" });
  expect((error as Error).message).toContain("rejected");
});
