import { Agent } from "../../src/agent/index.js";
import type { RequireUserConfirmEvent } from "../../src/event/index.js";
import { userConfirmResult } from "../../src/event/index.js";
import { blocksOf, type ToolCallBlock, userMsg } from "../../src/message/index.js";
import {
  decidePermission,
  type PermissionDecision,
  type PermissionMode,
  parseRule,
} from "../../src/permission/index.js";
import { ScriptedModel } from "../../src/testing/index.js";
import { builtinTools } from "../../src/tool/builtin/index.js";
import { collect } from "../agent/helpers.js";

export const MODES: PermissionMode[] = ["explore", "default", "accept_edits", "dont_ask", "bypass"];
/** The modes where nothing may run without a person saying yes (bypass runs what no deny rule names). */
export const ASKING_MODES: PermissionMode[] = ["explore", "default", "accept_edits", "dont_ask"];

const tools = Object.fromEntries(builtinTools({ bash: { timeoutMs: 10_000 } }).map((t) => [t.name, t]));

/** Rules as `behavior:Rule` strings (`deny:Bash(rm:*)`). */
function parseRules(rules: string[]) {
  return rules.map((text) => {
    const [behavior, rule] = text.split(/:(.*)/s) as ["allow" | "deny" | "ask", string];
    return parseRule(rule, behavior, "user");
  });
}

/** The engine's decision for one built-in tool call, as the agent would ask it. */
export async function decide(
  work: string,
  name: string,
  input: unknown,
  mode: PermissionMode,
  rules: string[] = [],
): Promise<PermissionDecision> {
  const tool = tools[name];
  if (!tool) throw new Error(`no built-in tool ${name}`);
  return decidePermission(tool, tool.parse(input), {
    mode,
    rules: parseRules(rules),
    workingDirectories: [work],
  });
}

export interface AgentRun {
  /** The calls the agent stopped to ask about. */
  asked: RequireUserConfirmEvent[];
  /** Every tool result, state and text output. */
  results: Array<{ state: string; output: string }>;
  agent: Agent;
}

/** Runs one built-in tool call through a real Agent (scripted model) in `work`. */
export async function runThroughAgent(
  work: string,
  call: { name: string; input: unknown },
  mode: PermissionMode,
  rules: string[] = [],
): Promise<AgentRun> {
  const agent = new Agent({
    name: "attacker",
    model: new ScriptedModel([{ toolCalls: [{ id: "call_1", ...call }] }, { text: "done" }]),
    toolkit: builtinTools({ bash: { timeoutMs: 10_000 } }),
    permission: { mode, workingDirectories: [work], rules },
  });
  const events = await collect(agent.replyStream(userMsg("go")));
  return { agent, ...outcome(agent, events) };
}

/** Answers the pending ask with `confirmed: true`, the input edited to `edited`. */
export async function approveEdited(run: AgentRun, edited: unknown): Promise<AgentRun> {
  const ask = run.asked.at(-1);
  if (!ask) throw new Error("nothing was asked");
  const call = ask.toolCalls[0] as ToolCallBlock;
  const events = await collect(
    run.agent.replyStream(
      userConfirmResult({
        replyId: ask.replyId,
        confirmResults: [
          { confirmed: true, toolCall: { id: call.id, name: call.name, input: JSON.stringify(edited) } },
        ],
      }),
    ),
  );
  return { agent: run.agent, ...outcome(run.agent, events) };
}

function outcome(agent: Agent, events: Awaited<ReturnType<typeof collect>>) {
  const asked = events.filter((e): e is RequireUserConfirmEvent => e.type === "REQUIRE_USER_CONFIRM");
  const results = agent.state.context.flatMap((m) =>
    blocksOf(m, "tool_result").map((r) => ({
      state: r.state,
      output: typeof r.output === "string" ? r.output : JSON.stringify(r.output),
    })),
  );
  return { asked, results };
}

/** Everything the run showed the model (and so the attacker). */
export function shown(run: AgentRun): string {
  return run.results.map((r) => r.output).join("\n");
}
