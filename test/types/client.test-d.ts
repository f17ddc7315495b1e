// The service client's methods return typed values and streams of AgentEvent.
import type { AgentEvent, Msg } from "agentscope";
import type {
  AgentScopeClient,
  EventStream,
  RunStream,
  SendInput,
  SessionDetail,
  SessionInfo,
  SessionPage,
  SessionStatus,
} from "agentscope/client";
import { describe, expectTypeOf, it } from "vitest";

declare const client: AgentScopeClient;

describe("AgentScopeClient", () => {
  it("types the session methods", () => {
    expectTypeOf(client.createSession()).resolves.toEqualTypeOf<SessionInfo>();
    expectTypeOf(client.listSessions({ limit: 10 })).resolves.toEqualTypeOf<SessionPage>();
    expectTypeOf(client.getSession("s")).resolves.toEqualTypeOf<SessionDetail>();
    expectTypeOf(client.status("s")).resolves.toEqualTypeOf<SessionStatus>();
    expectTypeOf(client.messages("s")).resolves.toEqualTypeOf<Msg[]>();
    expectTypeOf(client.deleteSession("s")).resolves.toBeVoid();
  });

  it("streams AgentEvents from send and events", () => {
    expectTypeOf(client.send("s", "hi")).toEqualTypeOf<RunStream>();
    expectTypeOf(client.send("s", "hi")).toExtend<AsyncIterable<AgentEvent>>();
    expectTypeOf(client.send("s", "hi").replyId).toEqualTypeOf<string | undefined>();
    expectTypeOf(client.events("s", { after: 3 })).toEqualTypeOf<EventStream>();
    expectTypeOf(client.events("s").collect()).resolves.toEqualTypeOf<AgentEvent[]>();
    expectTypeOf(client.send).parameter(1).toEqualTypeOf<SendInput | undefined>();
  });

  it("rejects input the service does not take", () => {
    // @ts-expect-error: a session id is a string
    void client.getSession(7);
    // @ts-expect-error: send takes text or messages, not a number
    void client.send("s", 42);
  });
});
