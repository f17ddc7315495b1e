import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { assistantMsg, userMsg } from "../../src/message/index.js";
import { type CheckpointStore, emptyAgentState, SessionTimeline } from "../../src/state/index.js";

/** What 100 checkpoints of a workspace where one file changes per reply cost a store. */
export interface StorageFigures {
  checkpoints: number;
  /** One copy of the workspace as it is at the start. */
  workspaceBytes: number;
  /** The bytes of the files as each reply rewrote them (what a copy of the changes takes). */
  changedBytes: number;
  /** The bytes of the conversation's messages (each stored once). */
  messageBytes: number;
  /** The blobs the store holds for the session. */
  storedBytes: number;
}

/**
 * A workspace of `dirs` × `filesPerDir` files of `fileBytes` each; `replies` replies each rewrite one
 * file and add a user and an assistant message; a checkpoint after each.
 */
export async function measureCheckpointStorage(
  store: CheckpointStore,
  sessionId: string,
  root: string,
  options = { replies: 100, dirs: 4, filesPerDir: 5, fileBytes: 4096 },
): Promise<StorageFigures> {
  const content = (seed: string) => seed.padEnd(options.fileBytes, `${seed}-`).slice(0, options.fileBytes);
  const paths: string[] = [];
  for (let d = 0; d < options.dirs; d++) {
    mkdirSync(join(root, `dir${d}`), { recursive: true });
    for (let f = 0; f < options.filesPerDir; f++) {
      const path = join(root, `dir${d}`, `file${f}.txt`);
      writeFileSync(path, content(`d${d}f${f}`));
      paths.push(path);
    }
  }
  const timeline = new SessionTimeline({ store, sessionId, workspace: root });
  const state = emptyAgentState(sessionId);
  let changedBytes = 0;
  let messageBytes = 0;
  for (let reply = 0; reply < options.replies; reply++) {
    writeFileSync(paths[reply % paths.length]!, content(`reply ${reply}`));
    changedBytes += options.fileBytes;
    const turn = [userMsg(`change file ${reply}`), assistantMsg(`I rewrote file ${reply % paths.length}.`)];
    for (const msg of turn) messageBytes += Buffer.byteLength(JSON.stringify(msg));
    state.context = [...state.context, ...turn];
    await timeline.record(state, { kind: "reply_end", stateVersion: reply + 1 });
  }
  return {
    checkpoints: (await timeline.list()).length,
    workspaceBytes: paths.length * options.fileBytes,
    changedBytes,
    messageBytes,
    storedBytes: await timeline.storedBytes(),
  };
}
