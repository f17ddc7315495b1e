import { type AgentState, assistantMsg, emptyAgentState, type Msg, userMsg } from "../../src/index.js";

/** A small seeded PRNG (mulberry32): the same seed plays the same session. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** JSON with keys sorted: deep equality that ignores key order (JSONB and the schema reorder keys). */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : 1)))
      : v,
  );
}

type Change = (state: AgentState, random: () => number) => void;

const word = (random: () => number) => `w${Math.floor(random() * 1e6).toString(36)} 中文 😀`;
const last = (state: AgentState): Msg | undefined => state.context.at(-1);
const older = (state: AgentState, random: () => number): number | undefined =>
  state.context.length < 2 ? undefined : Math.floor(random() * (state.context.length - 1));

/**
 * The changes an agent makes to a state between two saves (the reply in flight grows its last Msg;
 * replies start and end; compression drops the oldest messages) and the ones it may make to older
 * messages, each of which replaces the Msg or its content array, or adds or removes blocks.
 */
export const CHANGES: Record<string, Change> = {
  userMessage: (state, random) => void state.context.push(userMsg(word(random))),
  startReply: (state, random) => {
    const msg = assistantMsg([]);
    state.context.push(msg);
    state.replyContext = { replyId: msg.id, iteration: Math.floor(random() * 3) };
  },
  growText: (state, random) => {
    const msg = last(state);
    if (!msg) return;
    const block = msg.content.at(-1);
    if (block?.type === "text") block.text += word(random);
    else msg.content.push({ type: "text", id: `blk_${word(random)}`, text: word(random) });
  },
  toolCall: (state, random) => {
    const msg = last(state);
    if (msg?.role !== "assistant") return;
    const id = `call_${Math.floor(random() * 1e9)}`;
    msg.content.push({ type: "tool_call", id, name: "bash", input: '{"cmd":"ls"}', state: "finished" });
    msg.content.push({ type: "tool_result", id, name: "bash", output: word(random), state: "running" });
  },
  finishToolResult: (state, random) => {
    const result = last(state)?.content.find((b) => b.type === "tool_result" && b.state === "running");
    if (result?.type === "tool_result") {
      result.state = "success";
      result.output = `${String(result.output)} ${word(random)}`;
    }
  },
  endReply: (state) => {
    const msg = last(state);
    if (msg?.role === "assistant") msg.finishedReason = "completed";
    delete state.replyContext;
  },
  nextIteration: (state) => {
    if (state.replyContext) state.replyContext.iteration += 1;
  },
  replaceOlderMsg: (state, random) => {
    const i = older(state, random);
    if (i !== undefined) state.context[i] = userMsg(`replaced ${word(random)}`);
  },
  replaceOlderContent: (state, random) => {
    const i = older(state, random);
    if (i !== undefined) state.context[i]!.content = [{ type: "text", id: "blk_new", text: word(random) }];
  },
  addBlockToOlder: (state, random) => {
    const i = older(state, random);
    if (i !== undefined) state.context[i]!.content.push({ type: "text", id: "blk_hint", text: word(random) });
  },
  removeBlockFromOlder: (state, random) => {
    const i = older(state, random);
    if (i !== undefined && state.context[i]!.content.length > 1) state.context[i]!.content.pop();
  },
  compress: (state, random) => {
    const drop = Math.floor(random() * state.context.length);
    state.context.splice(0, drop);
    state.summary = `summary of ${drop} ${word(random)}`;
  },
  dropLast: (state) => void state.context.pop(),
  fields: (state, random) => {
    state.middleware[`m${Math.floor(random() * 3)}`] = { n: random() };
    if (random() < 0.3) delete state.middleware.m0;
    if (random() < 0.3) state.toolContext.read = { files: [word(random)] };
    if (random() < 0.2) {
      const at = new Date(0).toISOString();
      const id = `task_${state.tasks.length + 1}`;
      state.tasks.push({
        id,
        subject: word(random),
        description: "",
        status: "pending",
        dependencies: [],
        createdAt: at,
        updatedAt: at,
      });
    }
    if (random() < 0.2) delete state.summary;
    if (random() < 0.2)
      state.permission.rules.push({ toolName: "bash", behavior: "allow", source: "session" });
  },
};

const NAMES = Object.keys(CHANGES);
/** The agent's own changes come far more often than the rest. */
const COMMON = ["growText", "growText", "toolCall", "finishToolResult", "nextIteration", "userMessage"];

/** A few random changes, mostly of the kind a reply makes. */
export function randomChanges(state: AgentState, random: () => number): string[] {
  const done: string[] = [];
  const count = 1 + Math.floor(random() * 3);
  for (let i = 0; i < count; i++) {
    const pick = random() < 0.7 ? COMMON : NAMES;
    const name = pick[Math.floor(random() * pick.length)]!;
    if (name === "userMessage" && random() < 0.5) {
      CHANGES.endReply!(state, random);
      CHANGES.userMessage!(state, random);
      CHANGES.startReply!(state, random);
      done.push("endReply", "userMessage", "startReply");
    } else {
      CHANGES[name]!(state, random);
      done.push(name);
    }
  }
  return done;
}

/** A session to change: one exchange so far. */
export function freshSession(sessionId: string): AgentState {
  const state = emptyAgentState(sessionId);
  state.context = [userMsg("hello"), assistantMsg("hi")];
  return state;
}

/**
 * One reply the way the agent makes it, between its saves: the user's message and the reply's Msg,
 * a tool call and its result, then the answer. `save` is called at each of the agent's checkpoints
 * (reply start, after the model call, the tool result, the answer, the end): five per reply.
 */
export async function playReply(
  state: AgentState,
  reply: number,
  save: (state: AgentState) => Promise<void>,
): Promise<void> {
  state.context.push(userMsg(`question ${reply}: what is the weather in city ${reply}?`));
  const msg = assistantMsg([]);
  state.context.push(msg);
  state.replyContext = { replyId: msg.id, iteration: 0 };
  await save(state);
  const id = `call_${reply}`;
  msg.content.push({
    type: "tool_call",
    id,
    name: "get_weather",
    input: `{"city":"city ${reply}"}`,
    state: "finished",
  });
  await save(state);
  msg.content.push({
    type: "tool_result",
    id,
    name: "get_weather",
    output: `sunny in city ${reply}`,
    state: "success",
  });
  await save(state);
  state.replyContext.iteration = 1;
  msg.content.push({ type: "text", id: `blk_${reply}`, text: `It is sunny in city ${reply}. `.repeat(4) });
  await save(state);
  msg.finishedReason = "completed";
  delete state.replyContext;
  await save(state);
}
