import type { UserConfirmResultEvent } from "../../../event/index.js";
import type { ApproverOptions } from "../../../permission/index.js";
import type { ApprovalRequest } from "../../../protocol/index.js";
import type { AgentState } from "../../../state/index.js";
import type { ServiceBackend, SessionRecord } from "../backend/types.js";
import { sessionNotFound } from "../request-error.js";
import { ApprovalIndex, type ApproverPause } from "./approval-index.js";
import { approverAsks, asksNamedApprovers, checkApproverAnswer, namesApprover } from "./approver-asks.js";
import { answeringAgentName } from "./handoff-turns.js";
import type { RunInput } from "./run-execution.js";

/**
 * Named approvers in sessions they do not own: the one widening of the service's owner check. A
 * user an agent's approver policy names (by name, or a role the token configuration gives them)
 * reaches a session of another user only to answer the asks that policy governs, through the same
 * confirm path and gate as its owner; for everything else, and for anyone else, the session stays
 * "not found". Also the approvals inbox, read from an index of such pauses (never every session).
 */
export class ApproverAnswers {
  readonly #backend: ServiceBackend;
  readonly #approvers: ReadonlyMap<string, ApproverOptions | undefined>;
  readonly #rolesOf: (user: string) => readonly string[];
  /** Undefined when no agent has a policy naming users or roles: nothing to index, nobody to widen for. */
  readonly index: ApprovalIndex | undefined;

  constructor(
    backend: ServiceBackend,
    approvers: ReadonlyMap<string, ApproverOptions | undefined>,
    rolesOf: (user: string) => readonly string[],
  ) {
    this.#backend = backend;
    this.#approvers = approvers;
    this.#rolesOf = rolesOf;
    const named = [...approvers.values()].some((options) =>
      options?.policies.some((p) => p.users !== undefined || p.roles !== undefined),
    );
    this.index = named ? new ApprovalIndex(backend) : undefined;
  }

  /**
   * `answer` (a confirmation built against the state the run loads) as `user`'s answer in `record`'s
   * session, which they do not own: refused as "not found" before any lease is taken unless the
   * stored state asks something of them, and checked again against the state loaded under the lease
   * (`checkApproverAnswer`), so an ask answered meanwhile, a forged call id, an edit or rules are
   * "not found" too and nothing runs.
   */
  async answerInput(
    user: string,
    record: SessionRecord,
    answer: (state: AgentState) => UserConfirmResultEvent,
  ): Promise<RunInput> {
    const { sessionId } = record;
    const stored = this.index && (await this.#backend.store.load(sessionId));
    if (!stored || (await this.#asks(user, record, stored.state)).length === 0)
      throw sessionNotFound(sessionId);
    return async (state) => {
      const asks = await this.#asks(user, record, state);
      if (asks.length === 0) throw sessionNotFound(sessionId);
      const input = answer(state);
      checkApproverAnswer(sessionId, asks, input);
      return input;
    };
  }

  /** Indexes a pause of `record`'s session when it asks something a policy naming users or roles governs. */
  async paused(record: SessionRecord, replyId: string, state: AgentState): Promise<void> {
    const approvers = this.#approvers.get(answeringAgentName(this.#approvers, record.agent, state));
    if (this.index && asksNamedApprovers(approvers, state)) await this.index.add(record.sessionId, replyId);
  }

  /**
   * The asks in sessions `user` does not own that they may answer now, from the approvals index:
   * per indexed pause one record read and one state read. Pauses found over are closed in the index.
   */
  async inbox(user: string): Promise<ApprovalRequest[]> {
    if (!this.index || !this.#mayApproveAnywhere(user)) return [];
    const pauses = await this.index.pending();
    // the newest pause of each reply is the one read; older ones of it are over
    const newest = new Map<string, ApproverPause>();
    const over: ApproverPause[] = [];
    for (const pause of pauses) {
      const key = `${pause.sessionId}\n${pause.replyId}`;
      const before = newest.get(key);
      if (before) over.push(before);
      newest.set(key, pause);
    }
    const asks: ApprovalRequest[] = [];
    for (const pause of newest.values()) {
      const record = await this.#backend.sessions.get(pause.sessionId);
      const stored = record && (await this.#backend.store.load(pause.sessionId));
      const reply = stored?.state.replyContext;
      if (!record || !stored || reply?.replyId !== pause.replyId || !reply.waitingFor) {
        over.push(pause);
        continue;
      }
      if (record.owner !== user) asks.push(...(await this.#asks(user, record, stored.state)));
    }
    if (over.length > 0) await this.index.done(over);
    return asks;
  }

  /** What `user` may answer in the paused reply of `state`, by the policies of the agent answering it. */
  async #asks(user: string, record: SessionRecord, state: AgentState): Promise<ApprovalRequest[]> {
    const approvers = this.#approvers.get(answeringAgentName(this.#approvers, record.agent, state));
    const roles = await this.#roles(user, approvers);
    return approverAsks(approvers, user, roles, state);
  }

  /** The roles the gate judges `user` by: the token configuration's, else the agent's `rolesOf`. */
  async #roles(user: string, approvers: ApproverOptions | undefined): Promise<readonly string[]> {
    const roles = this.#rolesOf(user);
    if (roles.length > 0 || !approvers?.rolesOf) return roles;
    return [...((await approvers.rolesOf(user)) ?? [])];
  }

  /** Whether any agent's policy could name `user` (the token roles only: a cheap first filter). */
  #mayApproveAnywhere(user: string): boolean {
    const roles = this.#rolesOf(user);
    return [...this.#approvers.values()].some(
      (options) => options?.rolesOf !== undefined || namesApprover(options, user, roles),
    );
  }
}
