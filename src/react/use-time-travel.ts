import { useCallback, useEffect, useMemo, useState } from "react";
import {
  type AgentScopeClient,
  CheckpointTree,
  type MessageBranches,
  type SessionInfo,
} from "../client/index.js";
import type { Msg } from "../message/index.js";
import type { CheckpointList, RewindAnswer } from "../protocol/time-travel-types.js";

/** A session's time travel in a React component (docs/time-travel.md); part of `useAgentSession`. */
export interface TimeTravel {
  /** The session's checkpoints, branches and head; undefined while loading or on a server without checkpoints. */
  checkpoints: CheckpointList | undefined;
  /** The versions of the user message `messageId` ("2 / 3"), or undefined when it has one. */
  branchesOf(messageId: string): MessageBranches | undefined;
  /**
   * Moves the session back to a checkpoint (conversation, grants, files; memory writes made since
   * kept, or reverted with `memory: "revert"`); rewind to `undo` to undo it.
   */
  rewind(checkpoint: string, options?: { memory?: "keep" | "revert" }): Promise<RewindAnswer>;
  /** A new session from a checkpoint of this one (open it by passing its id to the hook). */
  fork(checkpoint: string, options?: { title?: string }): Promise<SessionInfo>;
  /** Replaces a past user message and runs from there: a new version of it (the old one stays). */
  editMessage(messageId: string, text: string): Promise<void>;
  /** Shows version `version` (1-based) of the user message `messageId`: a rewind to that line's tip. */
  switchBranch(messageId: string, version: number): Promise<RewindAnswer>;
}

export interface UseTimeTravelOptions {
  client: AgentScopeClient;
  sessionId: string | undefined;
  messages: readonly Msg[];
  /** Whether the session is idle (the checkpoints are read again each time it becomes so). */
  idle: boolean;
  /** Reads the session again after it was moved (a rewind, an edit). */
  reload(): void;
  setError(error: Error | undefined): void;
}

/** The checkpoint list of a session, read again when it becomes idle, and the actions on it. */
export function useTimeTravel(options: UseTimeTravelOptions): TimeTravel {
  const { client, sessionId, messages, idle, reload, setError } = options;
  const [loaded, setLoaded] = useState<{ sessionId: string; list: CheckpointList } | undefined>(undefined);
  const checkpoints = loaded?.sessionId === sessionId ? loaded?.list : undefined;
  const [stamp, setStamp] = useState(0);

  // read again when the session becomes idle with another conversation, and after each action
  const revision = idle ? `${messages.length}:${messages.at(-1)?.id}:${stamp}` : undefined;
  useEffect(() => {
    if (sessionId === undefined || revision === undefined) return;
    let cancelled = false;
    client.checkpoints(sessionId).then(
      (list) => !cancelled && setLoaded({ sessionId, list }),
      () => {}, // a server without checkpoints: nothing to show
    );
    return () => {
      cancelled = true;
    };
  }, [client, sessionId, revision]);

  const tree = useMemo(() => (checkpoints ? new CheckpointTree(checkpoints) : undefined), [checkpoints]);

  const branchesOf = useCallback(
    (messageId: string) => {
      const index = messages.findIndex((msg) => msg.id === messageId);
      if (!tree || index < 0 || messages[index]!.role !== "user") return undefined;
      return tree.branchesAt(index, messages[index - 1]?.id);
    },
    [tree, messages],
  );

  const act = useCallback(
    async <T>(run: (id: string) => Promise<T>, moves = true): Promise<T> => {
      if (sessionId === undefined) throw new TypeError("useAgentSession: no sessionId to act on");
      setError(undefined);
      try {
        return await run(sessionId);
      } catch (caught) {
        setError(caught as Error);
        throw caught;
      } finally {
        if (moves) setStamp((n) => n + 1); // the session moved: read its checkpoints again
      }
    },
    [sessionId, setError],
  );

  const rewind = useCallback(
    (checkpoint: string, rewindOptions: { memory?: "keep" | "revert" } = {}) =>
      act(async (id) => {
        const answer = await client.rewind(id, checkpoint, rewindOptions);
        reload();
        return answer;
      }),
    [act, client, reload],
  );
  const fork = useCallback(
    (checkpoint: string, forkOptions: { title?: string } = {}) =>
      act(async (id) => (await client.fork(id, checkpoint, forkOptions)).session, false),
    [act, client],
  );
  const editMessage = useCallback(
    (messageId: string, text: string) =>
      act(async (id) => {
        await client.editMessage(id, messageId, text);
        reload();
      }),
    [act, client, reload],
  );
  const switchBranch = useCallback(
    (messageId: string, version: number) => {
      const tip = branchesOf(messageId)?.tips[version - 1];
      if (tip === undefined)
        return Promise.reject(new RangeError(`message "${messageId}" has no version ${version}`));
      return rewind(tip);
    },
    [branchesOf, rewind],
  );

  return { checkpoints, branchesOf, rewind, fork, editMessage, switchBranch };
}
