import type { AgentScopeClient, SessionStateVersion } from "../../../../client/index.js";
import type { CheckpointInfo } from "../../../../protocol/time-travel-types.js";
import { type StateVersionRef, stateInspector } from "./state-inspector.js";

/** Versions read by this page per session, oldest first, when the server keeps no checkpoints. */
const READ_KEPT = 30;

const when = (iso: string) => new Date(iso).toLocaleTimeString("en");

const KIND_NAMES: Record<CheckpointInfo["kind"], string> = {
  start: "session start",
  reply_end: "reply end",
  pause: "pause",
  rewind: "rewind",
  fork: "fork",
  manual: "manual",
};

/**
 * The state page's versions over time. On a service with checkpoints (docs/time-travel.md) they are
 * the session's checkpoints (one at its start, each reply end and each pause), each read on demand
 * (`GET /v1/sessions/:id/state?checkpoint=cp-3`), then the state as stored now; without
 * checkpoints the store keeps only the newest state, so they are the versions this page read.
 */
export class StateVersions {
  readonly #client: AgentScopeClient;
  readonly #read = new Map<string, SessionStateVersion[]>();

  constructor(client: AgentScopeClient) {
    this.#client = client;
  }

  async draw(sessionId: string): Promise<HTMLElement> {
    const client = this.#client;
    const [latest, checkpoints] = await Promise.all([
      client.sessionState(sessionId),
      client.checkpoints(sessionId).then(
        (list) => list.checkpoints,
        () => undefined,
      ),
    ]);
    const now: StateVersionRef = {
      key: "now",
      label: `version ${latest.version}, as stored now (${when(latest.readAt)})`,
      version: latest.version,
      load: async () => latest.state,
    };
    if (!checkpoints) {
      const read = this.#remember(sessionId, latest);
      const refs = read.map((v, i) =>
        i === read.length - 1
          ? now
          : {
              key: `read-${i}`,
              label: `version ${v.version} (read ${when(v.readAt)})`,
              version: v.version,
              load: async () => v.state,
            },
      );
      return stateInspector(latest, refs, { checkpoints: false });
    }
    const refs: StateVersionRef[] = checkpoints.map((cp) => ({
      key: cp.id,
      label: `${cp.id}: version ${cp.stateVersion}, ${KIND_NAMES[cp.kind]} (${when(cp.createdAt)}), ${cp.messages} messages`,
      version: cp.stateVersion,
      kind: cp.kind,
      load: async () => (await client.sessionState(sessionId, { checkpoint: cp.id })).state,
    }));
    return stateInspector(latest, [...refs, now], { checkpoints: true });
  }

  #remember(sessionId: string, read: SessionStateVersion): SessionStateVersion[] {
    const list = this.#read.get(sessionId) ?? [];
    if (list.at(-1)?.version !== read.version) list.push(read);
    else list[list.length - 1] = read;
    if (list.length > READ_KEPT) list.shift();
    this.#read.set(sessionId, list);
    return list;
  }
}
