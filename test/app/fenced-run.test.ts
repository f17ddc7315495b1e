import { describe, expect, it } from "vitest";
import { z } from "zod";
import { memoryBackend } from "../../src/app/server/backend/memory-backend.js";
import type { RunLease } from "../../src/app/server/backend/types.js";
import type { ServiceLogEntry } from "../../src/app/server/runtime/service-log.js";
import { ServiceRuntime } from "../../src/app/server/runtime/service-runtime.js";
import { userMsg } from "../../src/message/index.js";
import type { ChatModel } from "../../src/model/types.js";
import { functionTool, type Tool } from "../../src/tool/index.js";
import { crashModel } from "./fixtures/agents.js";

/** The crash-test model, whose every call waits for `open()` before it streams. */
function gatedModel() {
  const inner = crashModel();
  let open!: () => void;
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  const model: ChatModel = {
    ...inner,
    countTokens: (messages, tools) => inner.countTokens(messages, tools),
    async *stream(messages, opts) {
      await gate;
      yield* inner.stream(messages, opts);
    },
  };
  return { model, open };
}

describe("a run whose lease another replica has taken", () => {
  it("stops at its next write: the tool it was about to call never runs, nothing more is logged, the log says so", async () => {
    const backend = memoryBackend();
    const leases: RunLease[] = [];
    const acquire = backend.locks.acquire.bind(backend.locks);
    backend.locks.acquire = async (sessionId) => {
      const lease = await acquire(sessionId);
      if (lease) leases.push(lease);
      return lease;
    };
    const calls: string[] = [];
    const slow = functionTool({
      name: "slow",
      description: "A lookup with a side effect.",
      input: z.object({ note: z.string() }),
      readOnly: true,
      execute: ({ note }) => {
        calls.push(note);
        return "done";
      },
    }) as Tool;
    const { model, open } = gatedModel();
    const logged: ServiceLogEntry[] = [];
    const runtime = new ServiceRuntime({
      backend,
      agents: [{ name: "main", model, toolkit: [slow] }],
      log: (entry) => logged.push(entry),
    });
    const { sessionId } = await runtime.createSession("local");
    const handle = await runtime.startReply("local", sessionId, [userMsg("slow lookup")]);
    const before = await backend.events.lastSeq(sessionId);
    // the run is paused inside its model call; meanwhile its lease is lost and another replica takes it
    const [mine] = leases.splice(0);
    await mine!.release();
    const theirs = (await backend.locks.acquire(sessionId))!;
    open();
    await handle.done;
    expect(calls).toEqual([]);
    expect(await backend.events.lastSeq(sessionId)).toBe(before);
    expect(logged).toContainEqual(expect.objectContaining({ level: "warn", sessionId }));
    expect(logged.find((e) => e.level === "warn")?.message).toMatch(/^run fenced: .*generation \d+/);
    expect(await backend.locks.isHeld(sessionId)).toBe(true); // the other run's lease, untouched
    await theirs.release();
    await runtime.close();
  });
});
