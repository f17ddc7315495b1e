import { expect, it } from "vitest";
import { addExposedSession, nestSessions } from "../../../src/app/console/ui/session-tree.js";
import type { SessionInfo } from "../../../src/client/index.js";
import { createEvent } from "../../../src/event/index.js";

const session = (sessionId: string, createdAt: string, parent?: string): SessionInfo => ({
  sessionId,
  owner: "alice",
  agent: "main",
  createdAt,
  ...(parent ? { parent: { sessionId: parent, label: sessionId } } : {}),
});

it("nests sub-agent sessions right after their parent, oldest first, at any depth; orphans stay top-level", () => {
  const rows = nestSessions([
    session("b", "2026-12-03T03:00:00Z"),
    session("b-late", "2026-12-03T05:00:00Z", "b"),
    session("a", "2026-12-03T02:00:00Z"),
    session("b-early", "2026-12-03T04:00:00Z", "b"),
    session("b-early-kid", "2026-12-03T06:00:00Z", "b-early"),
    session("orphan", "2026-12-03T01:00:00Z", "gone"),
    session("loop-1", "2026-12-03T01:00:00Z", "loop-2"),
    session("loop-2", "2026-12-03T01:00:00Z", "loop-1"),
  ]);
  expect(rows.map((r) => [r.session.sessionId, r.depth, r.parent?.sessionId])).toEqual([
    ["b", 0, undefined],
    ["b-early", 1, "b"],
    ["b-early-kid", 2, "b-early"],
    ["b-late", 1, "b"],
    ["a", 0, undefined],
    ["orphan", 0, undefined],
    // A cycle of parents (never written by the service) still shows each session once.
    ["loop-1", 0, undefined],
    ["loop-2", 1, "loop-1"],
  ]);
});

it("a SUBAGENT_EXPOSED event naming a session adds it under the open session, once", () => {
  const parent = session("p", "2026-12-03T01:00:00Z");
  const sessions = [parent];
  const exposed = createEvent("SUBAGENT_EXPOSED", {
    replyId: "child",
    name: "desk",
    toolCallId: "c1",
    parentReplyId: "r",
    subagentId: "sub_1",
    agentId: "desk",
    sessionId: "desk-1",
    label: "desk",
  });
  expect(addExposedSession(sessions, exposed, parent)).toBe(true);
  expect(addExposedSession(sessions, exposed, parent)).toBe(false);
  expect(sessions[1]).toMatchObject({
    sessionId: "desk-1",
    owner: "alice",
    agent: "desk",
    parent: { sessionId: "p", toolCallId: "c1", subagentId: "sub_1", label: "desk" },
  });
  // An in-process sub-run (no sessionId) is no conversation of its own.
  const nested = createEvent("SUBAGENT_EXPOSED", {
    replyId: "x",
    name: "r",
    toolCallId: "c2",
    parentReplyId: "r",
  });
  expect(addExposedSession(sessions, nested, parent)).toBe(false);
  expect(addExposedSession(sessions, exposed, undefined)).toBe(false);
  expect(sessions).toHaveLength(2);
});
