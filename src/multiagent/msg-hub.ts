import type { Agent } from "../agent/index.js";
import type { Msg } from "../message/index.js";

/** A participant of a hub: anything that replies and can observe what others said. */
export type HubParticipant = Pick<Agent, "name" | "reply" | "observe">;

export interface MsgHubOptions {
  /** Broadcast to every participant when the hub opens (e.g. the topic). */
  announcement?: Msg | Msg[];
}

/**
 * A room where what one participant says reaches the others: `reply` runs one participant and has
 * every other participant `observe` its reply (a broadcast); `broadcast` sends any message to all.
 * Participants join and leave with `add` / `remove`. Replies of a participant run one at a time.
 */
export class MsgHub {
  private readonly members: HubParticipant[] = [];

  constructor(participants: HubParticipant[], options: MsgHubOptions = {}) {
    for (const participant of participants) this.add(participant);
    if (options.announcement) this.broadcast(options.announcement);
  }

  get participants(): readonly HubParticipant[] {
    return this.members;
  }

  add(participant: HubParticipant): this {
    if (this.members.some((m) => m.name === participant.name)) {
      throw new TypeError(`MsgHub: a participant named "${participant.name}" is already in the hub`);
    }
    this.members.push(participant);
    return this;
  }

  remove(participant: HubParticipant | string): boolean {
    const name = typeof participant === "string" ? participant : participant.name;
    const at = this.members.findIndex((m) => m.name === name);
    if (at < 0) return false;
    this.members.splice(at, 1);
    return true;
  }

  /** Every participant except `from` observes `msgs`. */
  broadcast(msgs: Msg | Msg[], from?: HubParticipant | string): void {
    const skip = typeof from === "string" ? from : from?.name;
    for (const member of this.members) if (member.name !== skip) member.observe(msgs);
  }

  /**
   * `participant` replies (to `input`, if any); the others observe its reply as said: its text
   * blocks under its name (its tool calls and results are its own business, and their ids would
   * clash with the observers' own).
   */
  async reply(participant: HubParticipant | string, input?: Msg | Msg[]): Promise<Msg> {
    const member = this.find(participant);
    const msg = await member.reply(input);
    this.broadcast(spoken(msg), member);
    return msg;
  }

  private find(participant: HubParticipant | string): HubParticipant {
    const name = typeof participant === "string" ? participant : participant.name;
    const member = this.members.find((m) => m.name === name);
    if (!member)
      throw new TypeError(
        `MsgHub: "${name}" is not in the hub (${this.members.map((m) => m.name).join(", ")})`,
      );
    return member;
  }
}

/** What others hear of a reply: its text blocks, with the speaker's name. */
export function spoken(msg: Msg): Msg {
  return {
    ...msg,
    content: msg.content.filter((block) => block.type === "text"),
    metadata: { ...msg.metadata },
  };
}
