import { z } from "zod";
import type { Agent, ReplyInput, ReplyOptions } from "../agent/index.js";
import type { AgentEvent } from "../event/index.js";
import { userMsg } from "../message/index.js";
import type { AgentState } from "../state/index.js";
import { functionTool, type Tool, type ToolContext } from "../tool/index.js";
import type { AgentLike } from "./agent-like.js";
import { runNested } from "./run-nested.js";
import { subState, toolResultOf } from "./sub-agent-tool.js";

export interface TeamMember {
  agent: AgentLike;
  /** What the member is good at: the leader reads it in the `team_assign` tool's description. */
  description: string;
}

export interface TeamPipelineOptions {
  /** The leader: an Agent; the team registers a `team_assign` tool in its toolkit. */
  leader: Agent;
  members: TeamMember[];
  /** The team's name (default: the leader's); events of members carry `<leader>/<member>` as source. */
  name?: string;
}

export const TEAM_ASSIGN_TOOL = "team_assign";

/**
 * A leader and its members. The leader gets a `team_assign` tool (`member` from an enum, `prompt`):
 * assignments to different members run at the same time, to one member in order, and each member
 * keeps its session across assignments within the team's session (stored in the leader's state).
 * A member's final answer is the tool result; its events stream out nested, its pauses pause the
 * team and come back by replyId, and an interrupt reaches every participant. `replyStream` has the
 * same contract as an Agent's, so the service serves a team like one agent.
 */
export class TeamPipeline implements AgentLike {
  readonly name: string;
  readonly leader: Agent;
  readonly members: readonly TeamMember[];
  /** Per team session (the leader's tool context), the tail of each member's queue of assignments. */
  private readonly queues = new WeakMap<object, Map<string, Promise<unknown>>>();

  constructor(options: TeamPipelineOptions) {
    if (options.members.length === 0) throw new TypeError("TeamPipeline: give at least one member");
    const names = options.members.map((m) => m.agent.name);
    const dup = names.find((name, i) => names.indexOf(name) !== i);
    if (dup !== undefined) throw new TypeError(`TeamPipeline: two members are named "${dup}"`);
    if (names.includes(options.leader.name)) {
      throw new TypeError(`TeamPipeline: member "${options.leader.name}" has the leader's name`);
    }
    this.leader = options.leader;
    this.members = options.members;
    this.name = options.name ?? options.leader.name;
    this.leader.toolkit.register(this.assignTool());
  }

  get state(): AgentState {
    return this.leader.state;
  }

  createState(sessionId?: string): AgentState {
    return this.leader.createState(sessionId);
  }

  replyStream<S extends z.ZodType | undefined = undefined>(
    input?: ReplyInput,
    options: ReplyOptions<S> = {},
  ): AsyncGenerator<AgentEvent> {
    return this.leader.replyStream(input, options);
  }

  reply<S extends z.ZodType | undefined = undefined>(input?: ReplyInput, options: ReplyOptions<S> = {}) {
    return this.leader.reply(input, options);
  }

  private assignTool(): Tool {
    const names = this.members.map((m) => m.agent.name) as [string, ...string[]];
    const roster = this.members.map((m) => `- ${m.agent.name}: ${m.description}`).join("\n");
    const tool = functionTool({
      name: TEAM_ASSIGN_TOOL,
      description: `Assign a task to a member of your team; the result is the member's answer. Assignments to different members run at the same time. Members:\n${roster}`,
      input: z.object({
        member: z.enum(names).describe("Who does it"),
        prompt: z.string().min(1).describe("The task, with everything the member needs to know"),
      }),
      readOnly: true,
      concurrencySafe: true,
      execute: ({ member, prompt }, ctx) => this.assign(member, prompt, ctx),
    });
    return Object.assign(tool, { delegatesTo: names });
  }

  /** Runs one assignment after the member's earlier ones in this session. */
  private async assign(memberName: string, prompt: string, ctx: ToolContext): Promise<unknown> {
    const member = this.members.find((m) => m.agent.name === memberName)!;
    let queues = this.queues.get(ctx.state);
    if (!queues) {
      queues = new Map();
      this.queues.set(ctx.state, queues);
    }
    const before = queues.get(memberName) ?? Promise.resolve();
    const work = before.then(
      () => this.runMember(member, prompt, ctx),
      () => this.runMember(member, prompt, ctx),
    );
    queues.set(
      memberName,
      work.catch(() => {}),
    );
    return work;
  }

  private async runMember(member: TeamMember, prompt: string, ctx: ToolContext): Promise<unknown> {
    const name = member.agent.name;
    const outcome = await runNested(member.agent, userMsg(prompt), ctx, {
      name,
      key: `team:${name}`,
      keep: true,
      newState: () => subState(member.agent, undefined, ctx),
    });
    if (outcome.paused) return "";
    return toolResultOf(name, outcome.reply, false);
  }
}
