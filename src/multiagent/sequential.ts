import type { ReplyOptions } from "../agent/index.js";
import { type AgentEvent, applyEvent } from "../event/index.js";
import { type Msg, userMsg } from "../message/index.js";
import type { AgentLike } from "./agent-like.js";
import { finalText } from "./final-text.js";

/** Options for `sequential` and `fanout`: an AbortSignal for every participant. */
export interface PipelineRunOptions {
  signal?: AbortSignal;
}

/**
 * Streams `agents` one after another, each on its own session (`agent.state`): the first replies
 * to `input`, each next one to the previous one's final text. Every event carries `source` (the
 * agent's name unless a nested run set its own). A reply that does not complete (a pause, an error)
 * ends the stream there.
 */
export async function* sequentialStream(
  agents: AgentLike[],
  input: Msg | Msg[],
  options: PipelineRunOptions = {},
): AsyncGenerator<AgentEvent> {
  let next: Msg | Msg[] = input;
  for (const agent of agents) {
    let msg: Msg | undefined;
    for await (const event of agent.replyStream(next, runOptions(options))) {
      msg = applyEvent(msg, event);
      if (event.source === undefined) event.source = agent.name;
      yield event;
    }
    if (msg?.finishedReason !== "completed") return;
    next = userMsg(finalText(msg));
  }
}

/** Runs `agents` in a row (see `sequentialStream`) and returns the last reply Msg. */
export async function sequential(
  agents: AgentLike[],
  input: Msg | Msg[],
  options: PipelineRunOptions = {},
): Promise<Msg> {
  if (agents.length === 0) throw new TypeError("sequential: give at least one agent");
  let next: Msg | Msg[] = input;
  let last: Msg | undefined;
  for (const agent of agents) {
    last = await replyOf(agent, next, options);
    if (last.finishedReason !== "completed") return last;
    next = userMsg(finalText(last));
  }
  return last!;
}

/**
 * Streams every agent's reply to the same `input` at once; events interleave, each with `source`
 * (the agent's name unless a nested run set its own).
 */
export async function* fanoutStream(
  agents: AgentLike[],
  input: Msg | Msg[],
  options: PipelineRunOptions = {},
): AsyncGenerator<AgentEvent> {
  const streams = agents.map((agent) => agent.replyStream(structuredClone(input), runOptions(options)));
  const step = (i: number) => streams[i]!.next().then((result) => ({ i, result }));
  const pending = new Map(streams.map((_, i) => [i, step(i)]));
  while (pending.size > 0) {
    const { i, result } = await Promise.race(pending.values());
    if (result.done) {
      pending.delete(i);
      continue;
    }
    pending.set(i, step(i));
    if (result.value.source === undefined) result.value.source = agents[i]!.name;
    yield result.value;
  }
}

/** Every agent replies to the same `input` at the same time; the reply Msgs in the agents' order. */
export function fanout(
  agents: AgentLike[],
  input: Msg | Msg[],
  options: PipelineRunOptions = {},
): Promise<Msg[]> {
  return Promise.all(agents.map((agent) => replyOf(agent, structuredClone(input), options)));
}

async function replyOf(agent: AgentLike, input: Msg | Msg[], options: PipelineRunOptions): Promise<Msg> {
  let msg: Msg | undefined;
  for await (const event of agent.replyStream(input, runOptions(options))) msg = applyEvent(msg, event);
  if (!msg) throw new Error(`${agent.name} produced no reply`);
  return msg;
}

function runOptions(options: PipelineRunOptions): ReplyOptions {
  return options.signal ? { signal: options.signal } : {};
}
